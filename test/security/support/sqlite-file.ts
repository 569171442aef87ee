import { openSqlite } from '../../../src/stores/sql/sqlite-statement-cache';

export type Row = Record<string, unknown>;

/**
 * Every row of every table of the SQLite file, read on a connection of its own (as a thief with a copy of the file
 * would), keyed by table name. Tables come from sqlite_master, so a table added later is dumped without a change here.
 */
export function dumpTables(filename: string): Map<string, Row[]> {
  const db = openSqlite(filename, { readonly: true });
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
      .all() as { name: string }[];
    return new Map(
      tables.map(({ name }) => [name, db.prepare(`select * from "${name}" order by rowid`).all() as Row[]]),
    );
  } finally {
    db.close();
  }
}

/** Every non-null cell of the dump as a string, with where it came from. */
export function storedValues(dump: Map<string, Row[]>): { table: string; column: string; value: string }[] {
  const values = [];
  for (const [table, rows] of dump) {
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value !== null && value !== undefined) values.push({ table, column, value: String(value) });
      }
    }
  }
  return values;
}

/**
 * Runs one statement on a connection of its own (WAL lets it share the file with the app's; better-sqlite3 waits
 * up to 5 s for a lock by default).
 */
export function execute(filename: string, statement: string, ...parameters: unknown[]): Row[] {
  const db = openSqlite(filename);
  try {
    const prepared = db.prepare(statement);
    if (prepared.reader) return prepared.all(...parameters) as Row[];
    prepared.run(...parameters);
    return [];
  } finally {
    db.close();
  }
}

/**
 * Makes every `event` on `table` fail inside SQLite, as a crash or a full disk would at that step of an operation;
 * returns the function that heals the file again.
 */
export function injectFailure(filename: string, event: 'insert' | 'update' | 'delete', table: string): () => void {
  const trigger = `injected_${event}_${table}_failure`;
  execute(
    filename,
    `create trigger "${trigger}" before ${event} on "${table}" begin select raise(abort, 'injected failure'); end`,
  );
  return () => execute(filename, `drop trigger "${trigger}"`);
}
