import type { Kysely, Selectable } from 'kysely';
import type { CredentialKind } from '../../../services/credential-kinds';
import type { WayInRule } from '../../../services/ways-in';
import type { StoredUser } from '../../../services/types';
import { fromUserRow } from '../rows';
import { type CredentialsTable, type Database, USER_COLUMNS } from '../schema';
import { lockedUser } from './user-rows';

/**
 * The kinds of credential that sign a person in by themselves, whatever is configured: a user keeps at least one way
 * in, so a removal that would take the last is refused. A second factor (`totp`, `recovery_code`) is no way in; a
 * provider identity (`oidc`) is one only while its provider is configured (`WayInRule`).
 */
const WAY_IN_KINDS = ['password', 'passkey'] as const satisfies readonly CredentialKind[];
const IDENTITY_KIND = 'oidc' satisfies CredentialKind;

/**
 * Whether the user can still sign in without credential `exceptId` under `rule`: a password, a passkey, or an
 * identity of a provider in the rule, other than it. The one count both removals (a passkey's, an identity's) make;
 * callers hold the user's lock (`lockedUser`), so what a racing removal left is what it counts.
 */
async function hasOtherWayIn(
  trx: Kysely<Database>,
  userId: string,
  exceptId: string,
  rule: WayInRule,
): Promise<boolean> {
  const providers = [...rule.identityProviders];
  const row = await trx
    .selectFrom('credentials')
    .select('id')
    .where('user_id', '=', userId)
    .where('id', '<>', exceptId)
    .where((eb) =>
      providers.length === 0
        ? eb('kind', 'in', WAY_IN_KINDS)
        : eb.or([
            eb('kind', 'in', WAY_IN_KINDS),
            eb.and([eb('kind', '=', IDENTITY_KIND), eb('label', 'in', providers)]),
          ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether credential `id` of this kind is the user's: when the last way in refuses a removal, the answer is
 * `last_way_in` for the user's own credential and `not_found` for anyone else's (ids cannot be probed).
 */
async function ownsCredential(
  trx: Kysely<Database>,
  userId: string,
  id: string,
  kind: CredentialKind,
): Promise<boolean> {
  const row = await trx
    .selectFrom('credentials')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row !== undefined;
}

/** What `removeCredential` did: the row as it was and its user as it now is, or why nothing changed. */
export type CredentialRemoval =
  | { outcome: 'removed'; row: Selectable<CredentialsTable>; user: StoredUser }
  | { outcome: 'last_way_in' }
  | { outcome: 'not_found' };

/**
 * Removes the user's credential `id` of this kind (a passkey, a provider identity), refused (`last_way_in`) when
 * `rule` is given and no other way in would remain: one removal for both slices. Under the user's lock (SQLite: the
 * one writer), a racing removal of the user's other way in has committed or waits: the check sees what it left, so
 * the two cannot both pass. Sets the user's `updated_at` to `now` when removed.
 */
export async function removeCredential(
  trx: Kysely<Database>,
  rowLocks: boolean,
  userId: string,
  id: string,
  kind: CredentialKind,
  rule: WayInRule | null,
  now: Date,
): Promise<CredentialRemoval> {
  if (!(await lockedUser(trx, userId, rowLocks))) return { outcome: 'not_found' };
  if (rule && !(await hasOtherWayIn(trx, userId, id, rule))) {
    return (await ownsCredential(trx, userId, id, kind)) ? { outcome: 'last_way_in' } : { outcome: 'not_found' };
  }
  const removed = await trx
    .deleteFrom('credentials')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .returningAll()
    .executeTakeFirst();
  if (!removed) return { outcome: 'not_found' };
  const user = await trx
    .updateTable('users')
    .set({ updated_at: now.getTime() })
    .where('id', '=', userId)
    .returning(USER_COLUMNS)
    .executeTakeFirstOrThrow();
  return { outcome: 'removed', row: removed, user: fromUserRow(user) };
}
