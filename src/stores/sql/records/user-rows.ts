import { type Kysely, type Selectable, sql } from 'kysely';
import { GLOBAL_SCOPE, type GrantScope } from '../../../services/store/access-records';
import { type Database, USER_COLUMNS, type UsersTable } from '../schema';

/** A user row, every column: what the aggregates return as a `StoredUser` (`fromUserRow`). */
export type UserRow = Selectable<UsersTable>;

/**
 * Where writers lock rows (PostgreSQL), every transaction that changes a user together with their sessions or tokens
 * locks the user row before any of those: one lock order, so two such transactions queue instead of deadlocking (a
 * reset that claimed its token and then wanted the user, against a deletion that held the user and then cascaded to
 * the token). Updating or deleting the user row takes this lock by itself, which is why those statements come first.
 */
export async function lockUser(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

/**
 * The user row, locked first where writers lock rows (the lock order, see `lockUser`): the changes of one user queue
 * here, behind a deletion, reset or change under way. Null when gone.
 */
export async function lockedUser(trx: Kysely<Database>, userId: string, rowLocks: boolean): Promise<UserRow | null> {
  const row = await trx
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('id', '=', userId)
    .$if(rowLocks, (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
  return row ?? null;
}

/** `users.credential_epoch` moved on by one, in the UPDATE of a change of credentials that ends sessions. */
export const NEXT_CREDENTIAL_EPOCH = sql<number>`credential_epoch + 1`;

/**
 * Moves the user's credential state on by one (a change of credentials that ends sessions); the row as it now is.
 * Callers hold the user row already (the lock order).
 */
export async function nextCredentialEpoch(trx: Kysely<Database>, userId: string): Promise<UserRow> {
  return trx
    .updateTable('users')
    .set({ credential_epoch: NEXT_CREDENTIAL_EPOCH })
    .where('id', '=', userId)
    .returning(USER_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** The user row, or null when gone. */
export async function userRowOf(trx: Kysely<Database>, userId: string): Promise<UserRow | null> {
  const row = await trx.selectFrom('users').select(USER_COLUMNS).where('id', '=', userId).executeTakeFirst();
  return row ?? null;
}

/** The verified account that owns the address, other than `exceptUserId`. */
export async function verifiedOwnerOf(
  trx: Kysely<Database>,
  emailKey: string,
  exceptUserId: string,
): Promise<UserRow | undefined> {
  return trx
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('email_key', '=', emailKey)
    .where('verified', '=', 1)
    .where('id', '<>', exceptUserId)
    .executeTakeFirst();
}

/**
 * Whether the session still exists and is the user's. With `rowLocks`, FOR SHARE waits for a logout-all, reset or
 * change that is deleting it right now, and then finds it gone: a write it authorised cannot commit after that
 * answer. (Callers lock the user row first: the lock order.)
 */
export async function sessionStillOpen(
  trx: Kysely<Database>,
  tokenHash: string,
  userId: string,
  rowLocks: boolean,
): Promise<boolean> {
  const row = await trx
    .selectFrom('sessions')
    .select('token_hash')
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .$if(rowLocks, (query) => query.forShare())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the user holds the role in `scope` (global unless given: deleting and disabling protect global holders)
 * and no other enabled user does there. Where writers lock rows, the role's row is locked
 * first (after the user's, the lock order): the protected changes of one role (revoke, disable, delete) queue here,
 * and each then counts the holders as the one before it left them, so two of them cannot remove the last two.
 */
export async function isLastEnabledHolder(
  trx: Kysely<Database>,
  userId: string,
  role: string,
  rowLocks: boolean,
  scope: GrantScope = GLOBAL_SCOPE,
): Promise<boolean> {
  if (rowLocks) {
    await trx.selectFrom('roles').select('name').where('name', '=', role).forNoKeyUpdate().execute();
  }
  const holds = await trx
    .selectFrom('user_roles')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('scope', '=', scope)
    .where('role', '=', role)
    .executeTakeFirst();
  if (!holds) return false;
  const other = await trx
    .selectFrom('user_roles as ur')
    .innerJoin('users as u', 'u.id', 'ur.user_id')
    .select('u.id')
    .where('ur.role', '=', role)
    .where('ur.scope', '=', scope)
    .where('ur.user_id', '<>', userId)
    .where('u.disabled_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return other === undefined;
}
