import { AsyncLocalStorage } from 'node:async_hooks';
import type { StoredApiKey, StoredServiceAccount } from '../../services/api-keys/api-key-records';
import type { AuditEvent } from '../../services/audit-event';
import type {
  StoredInvitation,
  StoredMembership,
  StoredOrganization,
} from '../../services/organizations/organization-records';
import type { StoredIdentity, StoredOidcFlow, StoredOidcHandoff } from '../../services/oidc/identity-records';
import type { StoredPasskey, StoredPasskeyChallenge } from '../../services/passkeys/passkey-records';
import type { GrantScope } from '../../services/store/access-records';
import type {
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
} from '../../services/types';
import type { OutboxRow } from './copies';
import { Journal, Table, type TableAccess } from './table';

/**
 * The tables of the memory store, as one side sees them: a transaction (`MemoryState.live`, its writes journaled) or
 * the reads outside one (`MemoryState.committed`). The aggregates (`memory-*-records.ts`) work on this, whichever.
 */
export interface MemoryData {
  /** Unique indexes: `usernameKey`, and `emailKey` among verified users only (the owner of an address). */
  users: TableAccess<string, StoredUser>;
  /** Token hash -> session; unique index `id` (its public name). */
  sessions: TableAccess<string, StoredSession>;
  /** Token hash -> the pending change of address; at most one per user. */
  emailChanges: TableAccess<string, StoredEmailChange>;
  /** Token hash -> emailed token. */
  tokens: TableAccess<string, StoredToken>;
  /** Role name -> names of the permissions it carries. */
  roles: TableAccess<string, ReadonlySet<string>>;
  /** Permission name -> true. */
  permissions: TableAccess<string, true>;
  /** User id -> scope of the grants (`GrantScope`) -> names of the roles granted to the user there. */
  userRoles: TableAccess<string, ReadonlyMap<GrantScope, ReadonlySet<string>>>;
  /** Message id -> message, in insertion order; messages outlive their user (they are not the user's rows). */
  outbox: TableAccess<string, OutboxRow>;
  /** User id -> the user's second factor, enabled or waiting. */
  secondFactors: TableAccess<string, StoredSecondFactor>;
  /** User id -> the hash of the user's password (its `password` credential); none for an account without one. */
  passwords: TableAccess<string, string>;
  /** Code hash -> the recovery code (the hash is unique, as the database's unique index keeps it). */
  recoveryCodes: TableAccess<string, MemoryRecoveryCode>;
  /** Token hash -> login challenge. */
  loginChallenges: TableAccess<string, StoredLoginChallenge>;
  /** Row id -> passkey; unique index `credentialId` (the WebAuthn credential id, across every account). */
  passkeys: TableAccess<string, StoredPasskey>;
  /** Challenge hash -> a passkey ceremony's challenge; a user's when it names one (a sign-in's names none). */
  passkeyChallenges: TableAccess<string, StoredPasskeyChallenge>;
  /** Row id -> provider identity; unique index `identity` (`identityKey`: issuer and subject, across every account). */
  identities: TableAccess<string, StoredIdentity>;
  /** State hash -> a started OpenID flow; a user's when it names one (a link's; a sign-in's names none). */
  oidcFlows: TableAccess<string, StoredOidcFlow>;
  /** Code hash -> a callback's decision; a user's when it names one. */
  oidcHandoffs: TableAccess<string, StoredOidcHandoff>;
  /** Organization id -> organization; not the user's (its `createdBy` turns null when that user goes). */
  organizations: TableAccess<string, StoredOrganization>;
  /** `membershipKey(organization id, user id)` -> membership: the user's rows, gone with the user. */
  memberships: TableAccess<string, StoredMembership>;
  /**
   * Invitation id -> invitation; unique indexes `tokenHash` and `address` (`invitationAddressKey`: one per
   * organization and canonical address). Not the inviter's: its `invitedBy` turns null when that user goes.
   */
  invitations: TableAccess<string, StoredInvitation>;
  /**
   * Key id -> API key: the owner's rows, gone with the owner. Unique indexes `keyHash` (the request path's lookup) and
   * `name` (`apiKeyNameKey`: one per owner and name). Its `createdBy` turns null when that user goes.
   */
  apiKeys: TableAccess<string, StoredApiKey>;
  /** User id -> the mark of a service account, gone with its user; its `createdBy` turns null when that user goes. */
  serviceAccounts: TableAccess<string, StoredServiceAccount>;
  /** User id -> the creation of the user's latest session. */
  lastSignIns: TableAccess<string, Date>;
  /** Event id -> event, in insertion order (the trail; nothing changes an event). */
  auditEvents: TableAccess<string, AuditEvent>;
  /**
   * The registry of what hangs off a user: every table whose rows have an owner (`TableOptions.ownerOf`), found
   * from the tables themselves, so a new table of the user's is removed with the user by declaring its owner.
   */
  userOwned: readonly TableAccess<unknown, unknown>[];
}

/** A recovery code's user, and when it was used (null until then: a used code never counts or verifies again). */
export interface MemoryRecoveryCode {
  userId: string;
  usedAt: Date | null;
}

type Tables = {
  [K in keyof Omit<MemoryData, 'userOwned'>]: MemoryData[K] extends TableAccess<infer Key, infer V>
    ? Table<Key, V>
    : never;
};

/**
 * The whole state of a `MemoryUserStore`, and its one writer at a time.
 *
 * Transactions run one after the other (`exclusive`), each writing in place under a `Journal` that a failure rolls
 * back. Reads outside a transaction never wait for it: they read `committed`, where every key the running
 * transaction has written reads as it was before, so they see neither its writes in progress nor, after a rollback,
 * anything it undid. (Waiting would hang for good a read made while a transaction awaits something that waits for
 * that read.)
 */
export class MemoryState {
  private readonly journal = new Journal();
  private readonly tables: Tables;
  readonly live: MemoryData;
  readonly committed: MemoryData;
  private tail: Promise<void> = Promise.resolve();
  /**
   * The transaction whose work (and every continuation of it) is running. Something that work started and that
   * outlives it still carries its mark, so a mark counts only while it is the current transaction's.
   */
  private readonly running = new AsyncLocalStorage<object>();
  private current: object | undefined;

  constructor() {
    const table = <K, V>(name: string, options: Omit<ConstructorParameters<typeof Table<K, V>>[1], 'name'> = {}) =>
      new Table<K, V>(this.journal, { name, ...options });
    const byUser = { ownerOf: (row: { userId: string }) => row.userId };
    const byKey = { ownerOf: (_value: unknown, userId: string) => userId };
    this.tables = {
      users: table<string, StoredUser>('users', {
        unique: {
          usernameKey: (user: StoredUser) => user.usernameKey,
          emailKey: (user: StoredUser) => (user.verified ? user.emailKey : undefined),
        },
      }),
      sessions: table<string, StoredSession>('sessions', {
        ...byUser,
        unique: { id: (session: StoredSession) => session.id },
      }),
      emailChanges: table<string, StoredEmailChange>('emailChanges', byUser),
      tokens: table<string, StoredToken>('tokens', byUser),
      roles: table<string, ReadonlySet<string>>('roles'),
      permissions: table<string, true>('permissions'),
      userRoles: table<string, ReadonlyMap<GrantScope, ReadonlySet<string>>>('userRoles', byKey),
      outbox: table<string, OutboxRow>('outbox'),
      secondFactors: table<string, StoredSecondFactor>('secondFactors', byKey),
      passwords: table<string, string>('passwords', byKey),
      recoveryCodes: table<string, MemoryRecoveryCode>('recoveryCodes', byUser),
      loginChallenges: table<string, StoredLoginChallenge>('loginChallenges', byUser),
      passkeys: table<string, StoredPasskey>('passkeys', {
        ...byUser,
        unique: { credentialId: (passkey: StoredPasskey) => passkey.credentialId },
      }),
      passkeyChallenges: table<string, StoredPasskeyChallenge>('passkeyChallenges', {
        ownerOf: (challenge: StoredPasskeyChallenge) => challenge.userId ?? undefined,
      }),
      identities: table<string, StoredIdentity>('identities', {
        ...byUser,
        unique: { identity: (identity: StoredIdentity) => identityKey(identity.issuer, identity.subject) },
      }),
      oidcFlows: table<string, StoredOidcFlow>('oidcFlows', {
        ownerOf: (flow: StoredOidcFlow) => flow.userId ?? undefined,
      }),
      oidcHandoffs: table<string, StoredOidcHandoff>('oidcHandoffs', {
        ownerOf: (handoff: StoredOidcHandoff) => handoff.userId ?? undefined,
      }),
      organizations: table<string, StoredOrganization>('organizations'),
      memberships: table<string, StoredMembership>('memberships', byUser),
      invitations: table<string, StoredInvitation>('invitations', {
        unique: {
          tokenHash: (invitation: StoredInvitation) => invitation.tokenHash,
          address: (invitation: StoredInvitation) =>
            invitationAddressKey(invitation.organizationId, invitation.emailKey),
        },
      }),
      apiKeys: table<string, StoredApiKey>('apiKeys', {
        ...byUser,
        unique: {
          keyHash: (key: StoredApiKey) => key.keyHash,
          name: (key: StoredApiKey) => apiKeyNameKey(key.userId, key.name),
        },
      }),
      serviceAccounts: table<string, StoredServiceAccount>('serviceAccounts', byUser),
      lastSignIns: table<string, Date>('lastSignIns', byKey),
      auditEvents: table<string, AuditEvent>('auditEvents'),
    };
    const all = Object.values(this.tables) as Table<unknown, unknown>[];
    const owned = all.filter((one) => one.isUserOwned);
    this.live = { ...this.tables, userOwned: owned };
    this.committed = {
      ...(Object.fromEntries(Object.entries(this.tables).map(([name, one]) => [name, one.committed])) as Omit<
        MemoryData,
        'userOwned'
      >),
      userOwned: owned.map((one) => one.committed),
    };
  }

  /**
   * Runs `work` as the one transaction of the moment, after those queued before it: all its writes stay, or (when
   * it throws) none does.
   */
  async exclusive<T>(work: () => Promise<T> | T): Promise<T> {
    // One asked for from inside a transaction would wait for that transaction, which waits for it: never silently.
    const outer = this.running.getStore();
    if (outer !== undefined && outer === this.current) {
      throw new Error('MemoryUserStore: a transaction (or a queue write) inside a transaction');
    }
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise((resolve) => (release = resolve));
    await previous;
    this.journal.begin();
    try {
      const run = (this.current = {});
      const result = await this.running.run(run, work);
      this.journal.commit();
      return result;
    } catch (error) {
      this.journal.rollback();
      throw error;
    } finally {
      this.current = undefined;
      release();
    }
  }

  /** See `Table.changeCommitted`: a write that commutes with any transaction, made without waiting for it. */
  changeSession(tokenHash: string, change: (session: StoredSession) => StoredSession): void {
    this.tables.sessions.changeCommitted(tokenHash, change);
  }

  /** As `changeSession`, for a key's last use (`lastUsedAt`, `lastUsedIp`: fields no transaction writes). */
  changeApiKey(keyId: string, change: (key: StoredApiKey) => StoredApiKey): void {
    this.tables.apiKeys.changeCommitted(keyId, change);
  }
}

/** An identity's key in the unique index `identity`: as the SQL store's `identifier`, issuer then subject. */
export function identityKey(issuer: string, subject: string): string {
  return `${issuer} ${subject}`;
}

/** A membership's key: the organization's id, then the user's (uuids: the space never occurs in either). */
export function membershipKey(organizationId: string, userId: string): string {
  return `${organizationId} ${userId}`;
}

/** An invitation's key in the unique index `address`: the organization's id, then the canonical address. */
export function invitationAddressKey(organizationId: string, emailKey: string): string {
  return `${organizationId} ${emailKey}`;
}

/** An API key's key in the unique index `name`: the owner's id, then the name (a uuid never holds a space). */
export function apiKeyNameKey(userId: string, name: string): string {
  return `${userId} ${name}`;
}

/**
 * Removes the user and every row of the registry's tables that hangs off it; messages to the user stay. The rows
 * that only name the user (an organization's creator, an invitation's inviter, a key's or service account's
 * creator) keep going without the name, as the database's `ON DELETE SET NULL` does.
 */
export function removeUser(data: MemoryData, user: StoredUser): void {
  for (const table of data.userOwned) table.deleteOwnedBy(user.id);
  for (const [id, organization] of [...data.organizations.entries()]) {
    if (organization.createdBy === user.id) data.organizations.set(id, { ...organization, createdBy: null });
  }
  for (const [id, invitation] of [...data.invitations.entries()]) {
    if (invitation.invitedBy === user.id) data.invitations.set(id, { ...invitation, invitedBy: null });
  }
  // An administrator's keys for service accounts, and the accounts they made, stay without their creator.
  for (const [id, key] of [...data.apiKeys.entries()]) {
    if (key.createdBy === user.id) data.apiKeys.set(id, { ...key, createdBy: null });
  }
  for (const [id, account] of [...data.serviceAccounts.entries()]) {
    if (account.createdBy === user.id) data.serviceAccounts.set(id, { ...account, createdBy: null });
  }
  data.users.delete(user.id);
}
