import type { Kysely } from 'kysely';
import type { Database } from '../schema';
import { failPendingLinks } from './pending-links';

/**
 * The one registry of the tables whose rows hang off a user (by `user_id`), by the aggregate that owns each.
 *
 * Why one list: a user goes on three paths (a deletion, an expired registration taking its name back or cleaned up,
 * a registration ending because another account proved the address) and each must take everything of the user with
 * it. Lists kept by hand per path drift apart as aggregates gain tables; here a table added to the schema with a
 * `user_id` column fails to compile until it is listed (or named as kept, below).
 */
export const USER_OWNED_TABLES = {
  sessions: ['sessions'],
  tokens: ['tokens'],
  credentials: ['credentials'],
  emailChanges: ['email_changes'],
  loginChallenges: ['login_challenges'],
  passkeys: ['passkey_challenges'],
  oidc: ['oidc_flows', 'oidc_handoffs'],
  organizations: ['organization_members'],
  apiKeys: ['api_keys', 'service_accounts'],
  access: ['user_roles'],
} as const satisfies Record<string, readonly (keyof Database)[]>;

/** Tables with a `user_id` that outlive the user: a message outlives its user (an account-deleted notice). */
type KeptTables = 'outbox';

type OwnedTable = (typeof USER_OWNED_TABLES)[keyof typeof USER_OWNED_TABLES][number];
type TablesWithUserId = { [T in keyof Database]: 'user_id' extends keyof Database[T] ? T : never }[keyof Database];
// A table with a `user_id` that is neither listed nor kept fails to compile here.
const everyUserTable: Exclude<TablesWithUserId, OwnedTable | KeptTables> extends never ? true : never = true;
void everyUserTable;

const OWNED_TABLES: readonly OwnedTable[] = Object.values(USER_OWNED_TABLES).flat();

/**
 * Deletes the users with every row of theirs (`USER_OWNED_TABLES`); returns how many users went. The user rows go
 * first (see `lockUser` for the lock order); the foreign keys cascade, and the dependents are deleted explicitly as
 * well so that this stays right on a connection where foreign key enforcement is off (SQLite's default).
 */
export async function deleteUsersWithDependents(trx: Kysely<Database>, userIds: string[]): Promise<number> {
  if (userIds.length === 0) return 0;
  const result = await trx.deleteFrom('users').where('id', 'in', userIds).executeTakeFirst();
  for (const table of OWNED_TABLES) await trx.deleteFrom(table).where('user_id', 'in', userIds).execute();
  // The rows that only name the user keep going without the name (the foreign keys' SET NULL).
  await trx.updateTable('organizations').set({ created_by: null }).where('created_by', 'in', userIds).execute();
  await trx
    .updateTable('organization_invitations')
    .set({ invited_by: null })
    .where('invited_by', 'in', userIds)
    .execute();
  // An administrator's keys for service accounts, and the accounts they made, stay without their creator.
  await trx.updateTable('api_keys').set({ created_by: null }).where('created_by', 'in', userIds).execute();
  await trx.updateTable('service_accounts').set({ created_by: null }).where('created_by', 'in', userIds).execute();
  return Number(result.numDeletedRows);
}

/**
 * Another account proved the address these unverified registrations claimed: they go, with everything of theirs, and
 * their pending links (which died with their tokens) fail as superseded.
 */
export async function endRegistrations(trx: Kysely<Database>, userIds: string[], now: Date): Promise<void> {
  if (userIds.length === 0) return;
  await failPendingLinks(trx, userIds, now);
  await deleteUsersWithDependents(trx, userIds);
}
