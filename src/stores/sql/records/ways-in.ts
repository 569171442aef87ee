import type { Kysely } from 'kysely';
import type { CredentialKind } from '../../../services/credential-kinds';
import type { WayInRule } from '../../../services/ways-in';
import type { Database } from '../schema';

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
export async function hasOtherWayIn(
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
export async function ownsCredential(
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
