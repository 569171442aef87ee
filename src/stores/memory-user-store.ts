import type { ApiKeyReads } from '../services/api-keys/api-key-records';
import { MemoryApiKeyRecords } from './memory/api-keys/memory-api-key-records';
import type { OrganizationReads } from '../services/organizations/organization-records';
import type {
  AccessReads,
  AdminReads,
  AuditReads,
  EmailChangeReads,
  ExpiryCutoffs,
  IdentityReads,
  LoginChallengeReads,
  OutboxQueue,
  PasskeyReads,
  SecondFactorReads,
  SessionReads,
  PasswordReads,
  TokenReads,
  TransactionOptions,
  UserReads,
  UserStore,
  UserStoreTransaction,
} from '../services/user-store';
import { MemoryAccessRecords } from './memory/memory-access-records';
import { MemoryAdminReads } from './memory/administration/memory-admin-reads';
import { MemoryAuditRecords } from './memory/memory-audit-records';
import { MemoryEmailChangeRecords } from './memory/email-changes/memory-email-change-records';
import { deleteExpired } from './memory/memory-expiry';
import { MemoryLoginChallengeRecords } from './memory/second-factor/memory-login-challenge-records';
import { MemoryOutboxQueue } from './memory/memory-outbox-queue';
import { MemoryOutboxRecords } from './memory/memory-outbox-records';
import { MemoryIdentityRecords } from './memory/oidc/memory-identity-records';
import { MemoryOrganizationRecords } from './memory/organizations/memory-organization-records';
import { MemoryPasskeyRecords } from './memory/passkeys/memory-passkey-records';
import { MemoryPasswordRecords } from './memory/memory-password-records';
import { MemorySecondFactorRecords } from './memory/second-factor/memory-second-factor-records';
import { MemorySessionReads, MemorySessionRecords } from './memory/memory-session-records';
import { MemoryState } from './memory/memory-state';
import { MemoryTokenRecords } from './memory/memory-token-records';
import { MemoryUserRecords } from './memory/memory-user-records';

/**
 * A `UserStore` kept in process memory, for tests and demos; everything is lost on exit.
 *
 * Transactions run one at a time, in the order they were asked for, and all or nothing: a `work` that throws (a
 * message id already taken, say) leaves no trace, as every write is journaled and undone (`memory/table.ts`).
 * The reads outside a transaction never wait for the running one and see only what is committed: neither its writes
 * in progress nor, once it rolled back, anything it wrote. The outbox queue's writes and `deleteExpired` are
 * transactions of their own, queued with the others; `sessions.touch` changes only a field no transaction writes,
 * and so is made at once. Rows are copied on the way in and on the way out: callers can never reach a stored object.
 * Like a database with foreign keys and unique indexes, it throws on tokens of unknown users and on duplicate keys.
 *
 * @example
 * const store = new MemoryUserStore();
 * Container.set(USER_STORE, store);
 */
export class MemoryUserStore implements UserStore {
  private readonly state = new MemoryState();
  /** The aggregates as transactions see them: built once, handed to each transaction in a new plain object. */
  private readonly records: UserStoreTransaction;

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

  constructor() {
    const { live, committed } = this.state;
    this.records = {
      users: new MemoryUserRecords(live),
      passwords: new MemoryPasswordRecords(live),
      tokens: new MemoryTokenRecords(live),
      emailChanges: new MemoryEmailChangeRecords(live),
      sessions: new MemorySessionRecords(live),
      secondFactors: new MemorySecondFactorRecords(live),
      loginChallenges: new MemoryLoginChallengeRecords(live),
      passkeys: new MemoryPasskeyRecords(live),
      oidc: new MemoryIdentityRecords(live),
      organizations: new MemoryOrganizationRecords(live),
      apiKeys: new MemoryApiKeyRecords(live),
      access: new MemoryAccessRecords(live),
      outbox: new MemoryOutboxRecords(live),
      audit: new MemoryAuditRecords(live),
    };
    // The same classes on the committed tables, whose writes throw: only the reads are reachable through the types.
    this.users = new MemoryUserRecords(committed);
    this.passwords = new MemoryPasswordRecords(committed);
    this.tokens = new MemoryTokenRecords(committed);
    this.emailChanges = new MemoryEmailChangeRecords(committed);
    this.sessions = new MemorySessionReads(this.state);
    this.secondFactors = new MemorySecondFactorRecords(committed);
    this.loginChallenges = new MemoryLoginChallengeRecords(committed);
    this.passkeys = new MemoryPasskeyRecords(committed);
    this.oidc = new MemoryIdentityRecords(committed);
    this.apiKeys = new MemoryApiKeyRecords(committed, this.state);
    this.organizations = new MemoryOrganizationRecords(committed);
    this.access = new MemoryAccessRecords(committed);
    this.admin = new MemoryAdminReads(committed);
    this.audit = new MemoryAuditRecords(committed);
    this.outbox = new MemoryOutboxQueue(this.state);
  }

  /** `options.durable` changes nothing here: nothing is ever on disk. */
  transaction<T>(work: (tx: UserStoreTransaction) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return this.state.exclusive(() => work({ ...this.records }));
  }

  deleteExpired(cutoffs: ExpiryCutoffs): Promise<number> {
    return this.state.exclusive(() => deleteExpired(this.state.live, cutoffs));
  }

  /** Nothing to release: the data simply goes with the object. */
  async close(): Promise<void> {}
}
