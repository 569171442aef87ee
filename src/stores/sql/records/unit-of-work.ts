import type { Kysely } from 'kysely';
import { insertTogether, type PendingInsert } from '../insert-together';
import type { RequestPathQueries } from '../request-path-queries';
import type { Database } from '../schema';
import type { SqlCapabilities } from '../sql-capabilities';

/** An insert waiting in a `SqlUnit`, built on whichever Kysely runs it when the waiting inserts go. */
export type QueuedInsert = (db: Kysely<Database>) => PendingInsert;

/** How often `SqlUserStore.transaction` runs its work in all when it fails with a unique violation (see below). */
export interface UniqueViolationRetries {
  attempts: number;
}

/**
 * What the aggregates of one run of a transaction's work share: the Kysely its statements run on, and the inserts
 * that wait to go together.
 *
 * Inserts wait (`queue`) and go as one statement (`insertTogether`) before the next statement of the transaction
 * runs, or at the end of the work, before the commit: a change and the outbox message and audit event it causes
 * (`tx.outbox.add`, `tx.audit.add`) then cost PostgreSQL one round trip, as when the store wrote them itself. They
 * go before any later statement, so every statement sees the rows of the calls before it, as if each had run at once.
 * A failing insert (a taken outbox id) fails the work, and so undoes the transaction.
 *
 * `open`, where given (PostgreSQL, where a statement on its own is atomic), opens the transaction only when a call
 * first needs it (`ready`): a work that is one read and the inserts (a registration that replaces nobody, an audit
 * event alone) then runs without BEGIN and COMMIT, two round trips of four. Without it, the unit runs inside a
 * transaction already open.
 */
export class SqlUnit {
  private pending: QueuedInsert[] = [];
  private opening: Promise<Kysely<Database>> | undefined;
  private transactional: boolean;

  constructor(
    private current: Kysely<Database>,
    readonly capabilities: SqlCapabilities,
    readonly queries: RequestPathQueries,
    private readonly retries: UniqueViolationRetries,
    private readonly open?: () => Promise<Kysely<Database>>,
  ) {
    this.transactional = open === undefined;
  }

  /** Where the next statement runs: the transaction, or (before `ready` opened it) the store's Kysely. */
  get db(): Kysely<Database> {
    return this.current;
  }

  /** Whether the transaction is open (a read on `db` is then part of it). */
  get inTransaction(): boolean {
    return this.transactional;
  }

  /** Before a call's first statement: the transaction open, the waiting inserts in. Returns the Kysely to run on. */
  async ready(): Promise<Kysely<Database>> {
    if (!this.transactional) {
      this.opening ??= this.open!();
      this.current = await this.opening;
      this.transactional = true;
    }
    await this.flush();
    return this.current;
  }

  /** Adds an insert to those waiting (see above). */
  queue(insert: QueuedInsert | undefined): void {
    if (insert) this.pending.push(insert);
  }

  /** Runs the waiting inserts, as one statement where the database allows. */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const inserts = this.pending;
    this.pending = [];
    const db = this.current;
    await insertTogether(
      db,
      this.capabilities,
      inserts.map((build) => build(db)),
    );
  }

  /**
   * A unique violation of this work means a concurrent transaction committed what this one had checked was absent
   * (PostgreSQL, where the write lock is per row): run the whole work again, up to `attempts` runs in all; the next
   * run's checks see that row.
   */
  retryOnUniqueViolation(attempts: number): void {
    this.retries.attempts = Math.max(this.retries.attempts, attempts);
  }
}
