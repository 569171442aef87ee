import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  ApiKeyCheck,
  ApiKeyListing,
  ApiKeyReads,
  ApiKeyRecords,
  RevokedApiKey,
  StoredApiKey,
  StoredServiceAccount,
} from '../../../../services/api-keys/api-key-records';
import { type Awaitable, whenReady } from '../../../../services/awaitable';
import { GLOBAL_SCOPE } from '../../../../services/store/access-records';
import { ACCESS_CODES, type RequestPathQueries } from '../../request-path-queries';
import type { ApiKeysTable, Database, ServiceAccountsTable, UsersTable } from '../../schema';
import type { SqlCapabilities } from '../../sql-capabilities';
import { sortNames } from '../sql-access-records';
import { UNFLUSHED_STATEMENT } from '../unflushed';
import type { SqlUnit } from '../unit-of-work';
import { lockedUser } from '../user-rows';

const API_KEY_COLUMNS = [
  'id',
  'key_hash',
  'user_id',
  'name',
  'last_four',
  'scopes',
  'created_at',
  'expires_at',
  'last_used_at',
  'last_used_ip',
  'created_by',
] as const satisfies readonly (keyof ApiKeysTable)[];

const SERVICE_ACCOUNT_COLUMNS = [
  'user_id',
  'created_at',
  'created_by',
] as const satisfies readonly (keyof ServiceAccountsTable)[];

/** What a revocation answers, read back from the DELETE (`created_at` and `id` order them, newest first). */
const REVOKED_COLUMNS = ['id', 'user_id', 'name', 'last_four', 'created_at'] as const;

type ApiKeyRow = Pick<Selectable<ApiKeysTable>, (typeof API_KEY_COLUMNS)[number]>;
type ServiceAccountRow = Pick<Selectable<ServiceAccountsTable>, (typeof SERVICE_ACCOUNT_COLUMNS)[number]>;
type RevokedRow = Pick<Selectable<ApiKeysTable>, (typeof REVOKED_COLUMNS)[number]>;
type CheckRow = Pick<
  Selectable<UsersTable>,
  'id' | 'username' | 'email' | 'verified' | 'created_at' | 'updated_at' | 'disabled_at'
> &
  Pick<Selectable<ApiKeysTable>, 'expires_at' | 'scopes' | 'last_used_at'> & { key_id: string };

/** API keys and service accounts as the request path and the listings read them, on the store's Kysely. */
export class SqlApiKeyReads implements ApiKeyReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
    private readonly queries: RequestPathQueries,
  ) {}

  check(keyHash: string, permission?: string): Awaitable<ApiKeyCheck | null> {
    // Not async: on SQLite the read is synchronous (`readDirect`), and this runs on every request with a key: the
    // answer is then the value, not a promise of it (as `SqlSessionReads.check`).
    try {
      if (permission === undefined) return whenReady(this.queries.apiKeyCheck.execute(this.db, keyHash), fromCheck);
      return whenReady(
        this.queries.apiKeyCheckWithPermission.execute(this.db, keyHash, permission, permission),
        fromCheckWithAccess,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async list(userId: string): Promise<ApiKeyListing[]> {
    return listKeys(this.db, userId);
  }

  async touch(keyId: string, at: Date, ip: string | null): Promise<void> {
    // Its own statement, not flushed: a crash loses at most a last use, which the next request writes again.
    await this.capabilities.writeTransaction(
      this.db,
      (trx) =>
        trx
          .updateTable('api_keys')
          .set({ last_used_at: at.getTime(), last_used_ip: ip })
          .where('id', '=', keyId)
          .execute(),
      UNFLUSHED_STATEMENT,
    );
  }

  async serviceAccount(userId: string): Promise<StoredServiceAccount | null> {
    return serviceAccountOf(this.db, userId);
  }

  async listServiceAccounts(): Promise<StoredServiceAccount[]> {
    const rows = await this.db.selectFrom('service_accounts').select(SERVICE_ACCOUNT_COLUMNS).execute();
    // Oldest first: `createdAt`, then the user's id, sorted in JS (never a database collation's order).
    return rows
      .map(fromServiceAccountRow)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.userId < b.userId ? -1 : 1));
  }
}

/**
 * API keys inside a transaction. The core locks the owner (`lockOwner`: the user row `FOR NO KEY UPDATE` where writers
 * lock rows; SQLite has one writer at a time) before it counts, checks and inserts, so two creations of one owner
 * queue; the deletions take the same lock first (the lock order of every change of a user: its row, then its rows).
 *
 * `permissionsOf` is read under the owner's lock only, not under the lock of access changes: a role revoked while a key
 * is created may leave a key whose scope its owner no longer holds, but the key's check reads the owner's permission
 * in its own statement (`apiKeyCheckWithPermission`), so such a key is denied from the revocation's commit on.
 */
export class SqlApiKeyRecords implements ApiKeyRecords {
  constructor(private readonly unit: SqlUnit) {}

  async lockOwner(userId: string): Promise<boolean> {
    // PostgreSQL text holds no NUL, so no user has one, and asking would be an error there (22021).
    if (userId.includes('\u0000')) return false;
    return (await this.lockedOwner(userId)) !== null;
  }

  async permissionsOf(userId: string): Promise<string[]> {
    if (userId.includes('\u0000')) return [];
    const trx = await this.unit.ready();
    const rows = await trx
      .selectFrom('user_roles as ur')
      .innerJoin('role_permissions as rp', 'rp.role', 'ur.role')
      .select('rp.permission')
      .distinct()
      .where('ur.user_id', '=', userId)
      .where('ur.scope', '=', GLOBAL_SCOPE)
      .execute();
    return sortNames(rows.map((row) => row.permission));
  }

  async countLive(userId: string, now: Date): Promise<number> {
    if (userId.includes('\u0000')) return 0;
    const trx = await this.unit.ready();
    // The unique (user_id, name) index finds the owner's keys.
    const row = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('user_id', '=', userId)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async deleteExpiredOf(userId: string, now: Date): Promise<number> {
    if (userId.includes('\u0000')) return 0;
    const trx = await this.unit.ready();
    const result = await trx
      .deleteFrom('api_keys')
      .where('user_id', '=', userId)
      .where('expires_at', '<=', now.getTime())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async create(key: StoredApiKey): Promise<'created' | 'name_taken'> {
    const trx = await this.unit.ready();
    // As the foreign keys would refuse it, on SQLite too (whose connections do not enforce them); one read for both.
    const there = await trx
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom('users').select('id').where('id', '=', key.userId)).as('owner'),
        key.createdBy === null
          ? eb.lit(1).as('creator')
          : eb.exists(eb.selectFrom('users').select('id').where('id', '=', key.createdBy)).as('creator'),
      ])
      .executeTakeFirstOrThrow();
    if (!truthy(there.owner) || !truthy(there.creator)) throw new Error('SqlUserStore: no user with that id');
    // A taken name is an answer, not an error: a unique violation would abort a PostgreSQL transaction. Under the
    // owner's lock no other creation of the owner runs; without it, this waits for one and then finds its name.
    const inserted = await trx
      .insertInto('api_keys')
      .values(toApiKeyRow(key))
      .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted ? 'created' : 'name_taken';
  }

  async delete(userId: string, keyId: string): Promise<RevokedApiKey | null> {
    // The id comes from a URL: PostgreSQL text cannot hold NUL, so no stored id has one.
    if (userId.includes('\u0000') || keyId.includes('\u0000')) return null;
    const trx = await this.lockedOwner(userId);
    if (!trx) return null;
    const row = await trx
      .deleteFrom('api_keys')
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .returning(REVOKED_COLUMNS)
      .executeTakeFirst();
    return row ? fromRevokedRow(row) : null;
  }

  async deleteByHash(keyHash: string): Promise<RevokedApiKey | null> {
    if (keyHash.includes('\u0000')) return null;
    const trx = await this.unit.ready();
    const owner = await trx.selectFrom('api_keys').select('user_id').where('key_hash', '=', keyHash).executeTakeFirst();
    if (!owner) return null;
    // The owner's row first (the lock order); the key is then deleted only if it is still that owner's.
    await this.lockedOwner(owner.user_id);
    const row = await trx
      .deleteFrom('api_keys')
      .where('key_hash', '=', keyHash)
      .where('user_id', '=', owner.user_id)
      .returning(REVOKED_COLUMNS)
      .executeTakeFirst();
    return row ? fromRevokedRow(row) : null;
  }

  async deleteAll(userId: string): Promise<RevokedApiKey[]> {
    if (userId.includes('\u0000')) return [];
    const trx = await this.lockedOwner(userId);
    if (!trx) return [];
    const rows = await trx.deleteFrom('api_keys').where('user_id', '=', userId).returning(REVOKED_COLUMNS).execute();
    return rows.sort(newestRowFirst).map(fromRevokedRow);
  }

  async createServiceAccount(account: StoredServiceAccount): Promise<void> {
    const trx = await this.unit.ready();
    const there = await trx
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom('users').select('id').where('id', '=', account.userId)).as('user'),
        account.createdBy === null
          ? eb.lit(1).as('creator')
          : eb.exists(eb.selectFrom('users').select('id').where('id', '=', account.createdBy)).as('creator'),
      ])
      .executeTakeFirstOrThrow();
    if (!truthy(there.user) || !truthy(there.creator)) throw new Error('SqlUserStore: no user with that id');
    await trx.insertInto('service_accounts').values(toServiceAccountRow(account)).execute();
  }

  async serviceAccount(userId: string): Promise<StoredServiceAccount | null> {
    if (userId.includes('\u0000')) return null;
    return serviceAccountOf(await this.unit.ready(), userId);
  }

  /** The transaction, with the owner's row locked where writers lock rows (`lockedUser`); null when gone. */
  private async lockedOwner(userId: string): Promise<Kysely<Database> | null> {
    const trx = await this.unit.ready();
    return (await lockedUser(trx, userId, this.unit.capabilities.rowLocks)) ? trx : null;
  }
}

/** Every key of the user, newest first, with its creator's username. */
async function listKeys(db: Kysely<Database>, userId: string): Promise<ApiKeyListing[]> {
  if (userId.includes('\u0000')) return [];
  const rows = await db
    .selectFrom('api_keys as k')
    .leftJoin('users as c', 'c.id', 'k.created_by')
    .select(API_KEY_COLUMNS.map((column) => `k.${column}` as const))
    .select('c.username as created_by_username')
    .where('k.user_id', '=', userId)
    .execute();
  // Sorted in JS, so that ties on `createdAt` never depend on a database collation.
  return rows
    .map((row) => {
      const { keyHash: _hash, ...listing } = fromApiKeyRow(row);
      return { ...listing, createdByUsername: row.created_by_username ?? null };
    })
    .sort(newestFirst);
}

async function serviceAccountOf(db: Kysely<Database>, userId: string): Promise<StoredServiceAccount | null> {
  if (userId.includes('\u0000')) return null;
  const row = await db
    .selectFrom('service_accounts')
    .select(SERVICE_ACCOUNT_COLUMNS)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? fromServiceAccountRow(row) : null;
}

function fromCheck(rows: CheckRow[]): ApiKeyCheck | null {
  return rows.length > 0 ? fromCheckRow(rows[0]) : null;
}

function fromCheckWithAccess(rows: (CheckRow & { access: number })[]): ApiKeyCheck | null {
  const [row] = rows;
  if (!row) return null;
  const check = fromCheckRow(row);
  check.access = ACCESS_CODES[row.access];
  return check;
}

function fromCheckRow(row: CheckRow): ApiKeyCheck {
  return {
    keyId: row.key_id,
    user: {
      id: row.id,
      username: row.username,
      email: row.email,
      verified: Boolean(row.verified),
      createdAt: toDate(row.created_at),
      updatedAt: toDate(row.updated_at),
    },
    disabled: row.disabled_at !== null && row.disabled_at !== undefined,
    expiresAt: toDate(row.expires_at),
    scopes: scopesOf(row.scopes),
    lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : toDate(row.last_used_at),
  };
}

function toApiKeyRow(key: StoredApiKey): Insertable<ApiKeysTable> {
  return {
    id: key.id,
    key_hash: key.keyHash,
    user_id: key.userId,
    name: key.name,
    last_four: key.lastFour,
    scopes: JSON.stringify([...key.scopes]),
    created_at: key.createdAt.getTime(),
    expires_at: key.expiresAt.getTime(),
    last_used_at: key.lastUsedAt?.getTime() ?? null,
    last_used_ip: key.lastUsedIp ?? null,
    created_by: key.createdBy ?? null,
  };
}

function fromApiKeyRow(row: ApiKeyRow): StoredApiKey {
  return {
    id: row.id,
    keyHash: row.key_hash,
    userId: row.user_id,
    name: row.name,
    lastFour: row.last_four,
    scopes: scopesOf(row.scopes),
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : toDate(row.last_used_at),
    lastUsedIp: row.last_used_ip ?? null,
    createdBy: row.created_by ?? null,
  };
}

function toServiceAccountRow(account: StoredServiceAccount): Insertable<ServiceAccountsTable> {
  return { user_id: account.userId, created_at: account.createdAt.getTime(), created_by: account.createdBy ?? null };
}

function fromServiceAccountRow(row: ServiceAccountRow): StoredServiceAccount {
  return { userId: row.user_id, createdAt: toDate(row.created_at), createdBy: row.created_by ?? null };
}

function fromRevokedRow(row: RevokedRow): RevokedApiKey {
  return { id: row.id, userId: row.user_id, name: row.name, lastFour: row.last_four };
}

function scopesOf(text: string): readonly string[] {
  return JSON.parse(text) as string[];
}

/** Epoch milliseconds as the drivers give them back: a number (better-sqlite3) or a string (node-postgres int8). */
function toDate(value: number | string | bigint): Date {
  return new Date(Number(value));
}

/** An EXISTS as the drivers give it back: a boolean (PostgreSQL) or 0/1 (SQLite). */
function truthy(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/** Newest first: `createdAt`, then `id`, both descending (ids by UTF-16 code units, as `Array#sort`). */
function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function newestRowFirst(a: RevokedRow, b: RevokedRow): number {
  return newestFirst({ createdAt: toDate(a.created_at), id: a.id }, { createdAt: toDate(b.created_at), id: b.id });
}
