import type { ApiKeyReads } from '../../services/api-keys/api-key-records';
import { SqlApiKeyReads, SqlApiKeyRecords } from './records/api-keys/sql-api-key-records';
import { Kysely } from 'kysely';
import type { AccessReads } from '../../services/store/access-records';
import type { AdminReads } from '../../services/administration/admin-reads';
import type { AuditReads } from '../../services/store/audit-records';
import type { EmailChangeReads } from '../../services/email-changes/email-change-records';
import type { OutboxQueue } from '../../services/store/outbox-records';
import type { IdentityReads } from '../../services/oidc/identity-records';
import type { OrganizationReads } from '../../services/organizations/organization-records';
import type { PasskeyReads } from '../../services/passkeys/passkey-records';
import type { PasswordReads, TokenReads } from '../../services/store/password-records';
import type { LoginChallengeReads, SecondFactorReads } from '../../services/second-factor/second-factor-records';
import type { SessionReads } from '../../services/store/session-records';
import type { UserReads } from '../../services/store/user-records';
import type { ExpiryCutoffs, TransactionOptions, UserStore, UserStoreTransaction } from '../../services/user-store';
import { SqlAccessReads, SqlAccessRecords } from './records/sql-access-records';
import { SqlAdminReads } from './records/administration/sql-admin-reads';
import { SqlAuditReads, SqlAuditWriter } from './records/sql-audit';
import { SqlEmailChangeReads, SqlEmailChangeRecords } from './records/email-changes/sql-email-change-records';
import { deleteExpired } from './records/sql-expiry';
import { SqlLoginChallengeReads, SqlLoginChallengeRecords } from './records/second-factor/sql-login-challenge-records';
import { SqlOutboxQueue, SqlOutboxWriter } from './records/sql-outbox';
import { SqlIdentityReads, SqlIdentityRecords } from './records/oidc/sql-identity-records';
import { SqlOrganizationReads, SqlOrganizationRecords } from './records/organizations/sql-organization-records';
import { SqlPasskeyReads, SqlPasskeyRecords } from './records/passkeys/sql-passkey-records';
import { SqlPasswordReads, SqlPasswordRecords } from './records/sql-password-records';
import { SqlSecondFactorReads, SqlSecondFactorRecords } from './records/second-factor/sql-second-factor-records';
import { SqlSessionReads, SqlSessionRecords } from './records/sql-session-records';
import { SqlTokenReads, SqlTokenRecords } from './records/sql-token-records';
import { SqlUserReads } from './records/sql-user-reads';
import { SqlUserRecords } from './records/sql-user-records';
import { UNFLUSHED } from './records/unflushed';
import { SqlUnit, type UniqueViolationRetries } from './records/unit-of-work';
import { requestPathQueries, type RequestPathQueries } from './request-path-queries';
import { Database } from './schema';
import type { SqlCapabilities, WriteOptions } from './sql-capabilities';

/**
 * The `UserStore` over SQL, written once with Kysely; the database is chosen by the Kysely dialect and the
 * `SqlCapabilities` passed in. The schema must be migrated first (`migrateToLatest`). A transaction runs in
 * `capabilities.writeTransaction`, so it happens whole or not at all; each aggregate is a class of its own in
 * `records/`, given the transaction's `SqlUnit`, and single-use tokens are claimed by one conditional
 * `DELETE ... RETURNING` that only one caller can win.
 *
 * @example
 * const store = new SqlUserStore(new Kysely<Database>({ dialect }), capabilities);
 */
export class SqlUserStore implements UserStore {
  readonly users: UserReads;
  readonly passwords: PasswordReads;
  readonly tokens: TokenReads;
  readonly emailChanges: EmailChangeReads;
  readonly sessions: SessionReads;
  readonly secondFactors: SecondFactorReads;
  readonly loginChallenges: LoginChallengeReads;
  readonly passkeys: PasskeyReads;
  readonly oidc: IdentityReads;
  readonly organizations: OrganizationReads;
  readonly apiKeys: ApiKeyReads;
  readonly access: AccessReads;
  readonly admin: AdminReads;
  readonly audit: AuditReads;
  readonly outbox: OutboxQueue;
  private closed = false;
  private readonly queries: RequestPathQueries;

  /**
   * @param db Exposed for health checks, tests and a host's own queries. Writing through it bypasses the store's
   *   guarantees.
   */
  constructor(
    readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
  ) {
    const queries = requestPathQueries(db, capabilities);
    this.queries = queries;
    this.users = new SqlUserReads(db, queries);
    this.passwords = new SqlPasswordReads(db, queries);
    this.tokens = new SqlTokenReads(db);
    this.emailChanges = new SqlEmailChangeReads(db);
    this.sessions = new SqlSessionReads(db, capabilities, queries);
    this.secondFactors = new SqlSecondFactorReads(db, queries);
    this.loginChallenges = new SqlLoginChallengeReads(db);
    this.passkeys = new SqlPasskeyReads(db);
    this.oidc = new SqlIdentityReads(db);
    this.organizations = new SqlOrganizationReads(db);
    this.apiKeys = new SqlApiKeyReads(db, capabilities, queries);
    this.access = new SqlAccessReads(db, queries);
    this.admin = new SqlAdminReads(db, capabilities);
    this.audit = new SqlAuditReads(db);
    this.outbox = new SqlOutboxQueue(db, capabilities);
  }

  async transaction<T>(work: (tx: UserStoreTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const writeOptions: WriteOptions = options.durable === false ? UNFLUSHED : {};
    // Raised by the aggregates whose checks a concurrent commit can overtake (see `SqlUnit.retryOnUniqueViolation`).
    const retries: UniqueViolationRetries = { attempts: 1 };
    for (let attempt = 1; ; attempt++) {
      try {
        return await (this.capabilities.insertsTogether
          ? this.runOpeningLate(work, writeOptions, retries)
          : this.capabilities.writeTransaction(this.db, (trx) => this.runIn(trx, work, retries), writeOptions));
      } catch (error) {
        if (attempt >= retries.attempts || !this.capabilities.isUniqueViolation(error)) throw error;
      }
    }
  }

  async deleteExpired(cutoffs: ExpiryCutoffs): Promise<number> {
    return deleteExpired(this.db, this.capabilities, cutoffs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.destroy();
    await this.capabilities.close?.();
  }

  /** One run of `work` in the open transaction `trx`; the waiting inserts go before the commit. */
  private async runIn<T>(
    trx: Kysely<Database>,
    work: (tx: UserStoreTransaction) => Promise<T>,
    retries: UniqueViolationRetries,
  ): Promise<T> {
    const unit = new SqlUnit(trx, this.capabilities, this.queries, retries);
    const result = await work(this.transactionOf(unit));
    await unit.flush();
    return result;
  }

  /**
   * Runs `work` with the transaction opened only when a call first needs one (`SqlUnit`), where a statement on its
   * own is atomic and BEGIN and COMMIT are round trips of their own (PostgreSQL). A work that never needs it (a
   * registration that replaces nobody: one read, then its inserts as one statement) runs without them.
   *
   * Once opened, the transaction waits for the rest of the work and commits what it did. When the database aborts it
   * to resolve a conflict (a deadlock), `writeTransaction` runs its callback again: the whole work then runs again in
   * the new transaction, as `UserStore.transaction` allows, and its result is the answer.
   */
  private async runOpeningLate<T>(
    work: (tx: UserStoreTransaction) => Promise<T>,
    writeOptions: WriteOptions,
    retries: UniqueViolationRetries,
  ): Promise<T> {
    let transaction: Promise<T> | undefined;
    let settle!: { resolve: (result: T) => void; reject: (error: unknown) => void };
    const firstRun = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
    const open = () =>
      new Promise<Kysely<Database>>((handOver, fail) => {
        let runs = 0;
        transaction = this.capabilities.writeTransaction(
          this.db,
          async (trx) => {
            if (runs++ > 0) return this.runIn(trx, work, retries);
            handOver(trx);
            const result = await firstRun;
            await unit.flush();
            return result;
          },
          writeOptions,
        );
        // BEGIN failed: the call that wanted the transaction fails with it (once handed over, this changes nothing).
        transaction.catch(fail);
      });
    const unit = new SqlUnit(this.db, this.capabilities, this.queries, retries, open);
    (async () => work(this.transactionOf(unit)))().then(settle.resolve, settle.reject);
    let result: T;
    try {
      result = await firstRun;
    } catch (error) {
      // Opened: the transaction has rolled back, and says how it ended (a run again after a deadlock, or this error).
      if (transaction) return transaction;
      throw error;
    }
    if (transaction) return transaction;
    // Never opened: the waiting inserts go as one statement, atomic on its own.
    await unit.flush();
    return result;
  }

  /** The aggregates as one run of a transaction's work sees them (own enumerable properties: `wrapStore` spreads it). */
  private transactionOf(unit: SqlUnit): UserStoreTransaction {
    return {
      users: new SqlUserRecords(unit),
      passwords: new SqlPasswordRecords(unit),
      tokens: new SqlTokenRecords(unit),
      emailChanges: new SqlEmailChangeRecords(unit),
      sessions: new SqlSessionRecords(unit),
      secondFactors: new SqlSecondFactorRecords(unit),
      loginChallenges: new SqlLoginChallengeRecords(unit),
      passkeys: new SqlPasskeyRecords(unit),
      oidc: new SqlIdentityRecords(unit),
      organizations: new SqlOrganizationRecords(unit),
      apiKeys: new SqlApiKeyRecords(unit),
      access: new SqlAccessRecords(unit),
      outbox: new SqlOutboxWriter(unit),
      audit: new SqlAuditWriter(unit),
    };
  }
}
