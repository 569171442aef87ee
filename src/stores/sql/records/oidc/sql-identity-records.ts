import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AuthMethod } from '../../../../services/auth-methods';
import type {
  IdentityLink,
  IdentityReads,
  IdentityRecords,
  IdentityRemoval,
  OidcFlowIntent,
  StoredIdentity,
  StoredOidcFlow,
  StoredOidcHandoff,
} from '../../../../services/oidc/identity-records';
import type { WayInRule } from '../../../../services/ways-in';
import { type CredentialsTable, type Database, type OidcFlowsTable, type OidcHandoffsTable } from '../../schema';
import type { SqlUnit } from '../unit-of-work';
import { lockedUser } from '../user-rows';
import { removeCredential } from '../ways-in';

/** The columns of an identity's credential row. */
const IDENTITY_COLUMNS = [
  'id',
  'user_id',
  'identifier',
  'label',
  'details',
  'created_at',
  'last_used_at',
] as const satisfies readonly (keyof CredentialsTable)[];

type IdentityRow = Pick<Selectable<CredentialsTable>, (typeof IDENTITY_COLUMNS)[number]>;

/** An identity's `identifier`: issuer, one space, subject. An issuer is a URL and has no space: the first splits. */
function identifierOf(issuer: string, subject: string): string {
  return `${issuer} ${subject}`;
}

/** The provider identities of each account, read on `db` (the store's, or a transaction's). */
export class SqlIdentityReads implements IdentityReads {
  constructor(private readonly db: Kysely<Database>) {}

  async list(userId: string): Promise<StoredIdentity[]> {
    const rows = await this.db
      .selectFrom('credentials')
      .select(IDENTITY_COLUMNS)
      .where('user_id', '=', userId)
      .where('kind', '=', 'oidc')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(fromIdentityRow);
  }

  async find(issuer: string, subject: string): Promise<StoredIdentity | null> {
    const row = await this.db
      .selectFrom('credentials')
      .select(IDENTITY_COLUMNS)
      .where('kind', '=', 'oidc')
      .where('identifier', '=', identifierOf(issuer, subject))
      .executeTakeFirst();
    return row ? fromIdentityRow(row) : null;
  }

  async addressHeld(emailKey: string, unverifiedAfter: Date): Promise<boolean> {
    // `users_email_key_index` finds the address's accounts; a registration past its time holds nothing.
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', emailKey)
      .where((eb) => eb.or([eb('verified', '=', 1), eb('created_at', '>', unverifiedAfter.getTime())]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/**
 * Provider identities, their flows and handoffs, inside a transaction. Each change of a user's identities locks the
 * user row first (the lock order, see `lockUser`): they queue there behind a deletion of the user, and two removals
 * of one user's ways in are judged one after the other.
 */
export class SqlIdentityRecords implements IdentityRecords {
  constructor(private readonly unit: SqlUnit) {}

  async list(userId: string): Promise<StoredIdentity[]> {
    return (await this.reads()).list(userId);
  }

  async find(issuer: string, subject: string): Promise<StoredIdentity | null> {
    return (await this.reads()).find(issuer, subject);
  }

  async addressHeld(emailKey: string, unverifiedAfter: Date): Promise<boolean> {
    return (await this.reads()).addressHeld(emailKey, unverifiedAfter);
  }

  async link(identity: StoredIdentity): Promise<IdentityLink> {
    const trx = await this.unit.ready();
    if (!(await lockedUser(trx, identity.userId, this.unit.capabilities.rowLocks))) return 'gone';
    // The unique index on (kind, identifier) decides, not a read before: of racing links of one identity (to any
    // accounts, an account created in the same transaction included) the database lets one insert; the others wait
    // for it and then insert nothing. Doing nothing, rather than failing, keeps the transaction usable (a failed
    // statement aborts a PostgreSQL transaction), so the caller decides whether to undo it.
    const inserted = await trx
      .insertInto('credentials')
      .values(toIdentityRow(identity))
      .onConflict((oc) => oc.columns(['kind', 'identifier']).where('identifier', 'is not', null).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return 'duplicate';
    await trx
      .updateTable('users')
      .set({ updated_at: identity.createdAt.getTime() })
      .where('id', '=', identity.userId)
      .execute();
    return 'linked';
  }

  async unlink(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<IdentityRemoval> {
    const trx = await this.unit.ready();
    const removal = await removeCredential(trx, this.unit.capabilities.rowLocks, userId, id, 'oidc', wayIn, now);
    if (removal.outcome !== 'removed') return removal;
    return { outcome: 'removed', identity: fromIdentityRow(removal.row), user: removal.user };
  }

  async touch(id: string, now: Date): Promise<void> {
    const trx = await this.unit.ready();
    // The owner's row first (the lock order), then the identity's.
    const owner = await trx
      .selectFrom('credentials as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select('c.id')
      .where('c.id', '=', id)
      .where('c.kind', '=', 'oidc')
      .$if(this.unit.capabilities.rowLocks, (query) => query.forNoKeyUpdate('u'))
      .executeTakeFirst();
    if (!owner) return;
    await trx
      .updateTable('credentials')
      .set({ last_used_at: now.getTime() })
      .where('id', '=', id)
      .where('kind', '=', 'oidc')
      .execute();
  }

  async createFlow(flow: StoredOidcFlow): Promise<void> {
    // An insert alone waits to go with what follows it (`SqlUnit`): one statement on PostgreSQL.
    this.unit.queue((db) => db.insertInto('oidc_flows').values(toFlowRow(flow)));
  }

  async consumeFlow(stateHash: string, now: Date): Promise<StoredOidcFlow | null> {
    const trx = await this.unit.ready();
    // One DELETE ... RETURNING is the claim: of concurrent callers only the one whose statement deleted the row gets
    // it. An expired one is deleted too, and answers null.
    const row = await trx
      .deleteFrom('oidc_flows')
      .where('state_hash', '=', stateHash)
      .returningAll()
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= now.getTime()) return null;
    return fromFlowRow(row);
  }

  async createHandoff(handoff: StoredOidcHandoff): Promise<void> {
    this.unit.queue((db) => db.insertInto('oidc_handoffs').values(toHandoffRow(handoff)));
  }

  async consumeHandoff(codeHash: string, now: Date): Promise<StoredOidcHandoff | null> {
    const trx = await this.unit.ready();
    // As consumeFlow: the one statement that deleted the row is the one exchange of the code.
    const row = await trx
      .deleteFrom('oidc_handoffs')
      .where('code_hash', '=', codeHash)
      .returningAll()
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= now.getTime()) return null;
    return fromHandoffRow(row);
  }

  private async reads(): Promise<SqlIdentityReads> {
    return new SqlIdentityReads(await this.unit.ready());
  }
}

function toIdentityRow(identity: StoredIdentity): Insertable<CredentialsTable> {
  return {
    id: identity.id,
    user_id: identity.userId,
    kind: 'oidc',
    // Nothing secret: an identity is proved at its provider, each time.
    secret: '',
    identifier: identifierOf(identity.issuer, identity.subject),
    label: identity.provider,
    details: JSON.stringify({ email: identity.email }),
    created_at: identity.createdAt.getTime(),
    last_used_at: identity.lastUsedAt ? identity.lastUsedAt.getTime() : null,
  };
}

function fromIdentityRow(row: IdentityRow): StoredIdentity {
  const identifier = row.identifier ?? '';
  const space = identifier.indexOf(' ');
  const details = JSON.parse(row.details ?? '{}') as { email?: unknown };
  return {
    id: row.id,
    userId: row.user_id,
    provider: row.label ?? '',
    issuer: space < 0 ? identifier : identifier.slice(0, space),
    subject: space < 0 ? '' : identifier.slice(space + 1),
    email: typeof details.email === 'string' ? details.email : null,
    createdAt: new Date(Number(row.created_at)),
    lastUsedAt: row.last_used_at === null ? null : new Date(Number(row.last_used_at)),
  };
}

function toFlowRow(flow: StoredOidcFlow): Insertable<OidcFlowsTable> {
  return {
    state_hash: flow.stateHash,
    provider: flow.provider,
    browser_hash: flow.browserHash,
    sealed: flow.sealed,
    intent: flow.intent,
    user_id: flow.userId,
    session_id: flow.sessionId,
    return_to: flow.returnTo,
    created_at: flow.createdAt.getTime(),
    expires_at: flow.expiresAt.getTime(),
  };
}

function fromFlowRow(row: Selectable<OidcFlowsTable>): StoredOidcFlow {
  return {
    stateHash: row.state_hash,
    provider: row.provider,
    browserHash: row.browser_hash,
    sealed: row.sealed,
    intent: row.intent as OidcFlowIntent,
    userId: row.user_id,
    sessionId: row.session_id,
    returnTo: row.return_to,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}

function toHandoffRow(handoff: StoredOidcHandoff): Insertable<OidcHandoffsTable> {
  return {
    code_hash: handoff.codeHash,
    outcome: handoff.outcome,
    user_id: handoff.userId,
    identity_id: handoff.identityId,
    methods: JSON.stringify(handoff.methods),
    skip_second_factor: handoff.skipSecondFactor ? 1 : 0,
    ip: handoff.ip,
    user_agent: handoff.userAgent,
    created_at: handoff.createdAt.getTime(),
    expires_at: handoff.expiresAt.getTime(),
  };
}

function fromHandoffRow(row: Selectable<OidcHandoffsTable>): StoredOidcHandoff {
  return {
    codeHash: row.code_hash,
    outcome: row.outcome as StoredOidcHandoff['outcome'],
    userId: row.user_id,
    identityId: row.identity_id,
    methods: JSON.parse(row.methods) as AuthMethod[],
    skipSecondFactor: Number(row.skip_second_factor) === 1,
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}
