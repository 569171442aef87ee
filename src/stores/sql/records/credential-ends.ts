import type { Kysely } from 'kysely';
import type { TokenPurpose } from '../../../services/types';
import type { Database } from '../schema';
import { supersedeMessages } from './pending-links';

// What ends a user's means to act, shared by the aggregates whose changes end them (a new password, a disabled
// account, a confirmed change of address, a new token).

export async function deleteTokensOf(trx: Kysely<Database>, userId: string, purpose: TokenPurpose): Promise<void> {
  await trx.deleteFrom('tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
}

/**
 * What every password replacement must do in the same transaction: end all sessions, outstanding resets, the
 * pending change of address and the login challenges (all won with the old password), and fail the links of those
 * resets and that change not sent yet. The second factor and its recovery codes stay: a reset must not switch the
 * second factor off.
 */
export async function endSessionsAndResets(trx: Kysely<Database>, userId: string, at: Date): Promise<void> {
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await deleteTokensOf(trx, userId, 'reset_password');
  await supersedeMessages(trx, userId, 'passwordReset', at);
  await dropEmailChange(trx, userId, at);
  await trx.deleteFrom('login_challenges').where('user_id', '=', userId).execute();
}

/**
 * The user's pending change of address goes, and its link, if no worker holds it yet, is never sent. With
 * `keptSessionId` (ending the other sessions), a change that this kept session asked for stays; null: no session is
 * kept, so any change goes.
 */
export async function dropEmailChange(
  trx: Kysely<Database>,
  userId: string,
  at: Date,
  keptSessionId?: string | null,
): Promise<void> {
  const dropped = await trx
    .deleteFrom('email_changes')
    .where('user_id', '=', userId)
    .$if(typeof keptSessionId === 'string', (query) =>
      query.where((eb) => eb.or([eb('keep_session_id', 'is', null), eb('keep_session_id', '<>', keptSessionId!)])),
    )
    .executeTakeFirst();
  // Ending every session fails the links whatever was found; ending the others only when a change went.
  if (keptSessionId === undefined || dropped.numDeletedRows > 0n) {
    await supersedeMessages(trx, userId, 'emailChange', at);
  }
}
