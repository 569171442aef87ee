import type { Connection, FieldDef, Pool, Submittable } from 'pg';
import { types as defaultTypes } from 'pg';

/** How to turn a statement's text-format values into the row node-postgres would give: names and parsers. */
export interface RowShape {
  names: string[];
  parsers: ((value: string) => unknown)[];
}

/**
 * The shape of a statement's rows from the fields of one ordinary run of it, parsed as the pool's clients parse them;
 * null when a column comes back in binary format (a pool of binary clients), which only node-postgres reads.
 */
export function rowShapeOf(pool: Pool, fields: FieldDef[]): RowShape | null {
  if (fields.some((field) => field.format !== 'text')) return null;
  const types = pool.options.types ?? defaultTypes;
  return {
    names: fields.map((field) => field.name),
    parsers: fields.map((field) => types.getTypeParser(field.dataTypeID, 'text') as (value: string) => unknown),
  };
}

/** Raised instead of sending, on a connection this read does not know how to drive; the caller reads another way. */
export class BoundReadUnsupported extends Error {}

/**
 * Runs a named statement whose row shape is already known, as Bind, Execute and Sync. Also Parse on a connection
 * that has not prepared it yet, recorded where node-postgres records its own (`parsedStatements`), so either way of
 * reading prepares a name once per connection.
 *
 * Why: node-postgres' own `Query` asks for the result's description (Describe) on every execution, then parses the
 * RowDescription, builds a parser per column and spreads a prototype row for every answer. For a ten-column session
 * check that was about 20 µs of the event loop per request on the bench machine, more than the rest of the read. The
 * statement's shape cannot change under its name (PostgreSQL refuses with "cached plan must not change result type"),
 * so it is learnt once (`rowShapeOf`) and the rows are built from it.
 *
 * This implements node-postgres' `Submittable` (as pg-cursor does) with the handlers its client calls on the active
 * query; a connection without the statement bookkeeping this relies on fails it with `BoundReadUnsupported`, and a
 * client that refuses it fails it before `submitted`.
 */
export class BoundRead implements Submittable {
  /** Set by the client (the pool's callback); called once, with the rows or the error. */
  callback?: (error: Error | null, rows?: Record<string, unknown>[]) => void;
  /** Set by a client in binary mode; this read only understands text values. */
  binary?: boolean;
  /**
   * Whether the client handed it the connection. A client may refuse a custom query before that (one in pipeline
   * mode does); nothing reached the server then, and the read can be made another way.
   */
  submitted = false;
  private readonly rows: Record<string, unknown>[] = [];

  constructor(
    /** Read by the client when PostgreSQL confirms the Parse, to record the statement as prepared. */
    readonly name: string,
    readonly text: string,
    /** Made for this read alone (`textValues`), so it is sent as it is. */
    private readonly values: (string | null)[],
    private readonly shape: RowShape,
  ) {}

  submit(connection: Connection): Error | null {
    this.submitted = true;
    const wire = connection as Connection & Partial<StatementBookkeeping>;
    const { parsedStatements, submittedNamedStatements } = wire;
    if (this.binary || typeof parsedStatements !== 'object' || typeof submittedNamedStatements !== 'object') {
      return new BoundReadUnsupported('node-postgres connection without statement bookkeeping');
    }
    // One write for the whole exchange, as node-postgres' own Query does.
    connection.stream.cork();
    try {
      if (parsedStatements[this.name] === undefined && submittedNamedStatements[this.name] === undefined) {
        connection.parse({ name: this.name, text: this.text, types: [] }, false);
        submittedNamedStatements[this.name] = this.text;
      }
      connection.bind({ statement: this.name, portal: '', values: this.values }, false);
      connection.execute({ portal: '' }, false);
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    const { names, parsers } = this.shape;
    const { fields } = message;
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) {
      const value = fields[index];
      row[names[index]] = value === null ? null : parsers[index](value);
    }
    this.rows.push(row);
  }

  handleReadyForQuery(): void {
    this.finish(null, this.rows);
  }

  handleError(error: Error): void {
    this.finish(error);
  }

  // Messages a single-row read either never receives (no Describe was sent) or has nothing to do for.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  private finish(error: Error | null, rows?: Record<string, unknown>[]): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(error, rows);
  }
}

/** node-postgres' record of the named statements each connection has prepared or is preparing. */
interface StatementBookkeeping {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}
