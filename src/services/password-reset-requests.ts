import type { AccountContext } from './account-context';
import { anonymous } from './audit-trail';
import { emailKeyOf } from './identity';

/**
 * `AccountService.requestPasswordReset`: answers at once; the lookup, the token and the queued link happen after the
 * answer (see there). A disabled account and a service account (no mailbox: `mayMail`) are sent nothing.
 */
export function requestPasswordReset(core: AccountContext, email: string): void {
  const emailKey = emailKeyOf(email);
  if (emailKey === null) return;
  core.background.run('request_password_reset', {}, async () => {
    if (!(await core.mayMail('reset-request.email', emailKey))) return;
    const user = await core.background.retryWhileUnavailable(async () => {
      const found = await core.store.users.findVerifiedByEmailKey(emailKey);
      // A disabled account gets no link: a reset must not be a way back in.
      if (found && found.disabledAt === null) {
        const audit = core.audit.event('password_reset_requested', 'sent', anonymous(found.id));
        await core.replaceTokenAndQueueLink(found, 'reset_password', audit);
      } else if (found) {
        await core.audit.record('password_reset_requested', 'disabled', anonymous(found.id));
      }
      return found;
    });
    if (!user) {
      await core.audit.record('password_reset_requested', 'unknown_email', anonymous(null));
      core.logger.info({ event: 'password_reset_requested', outcome: 'unknown_email' }, 'password reset requested');
      return;
    }
    core.logger.info(
      { event: 'password_reset_requested', outcome: 'sent', userId: user.id },
      'password reset requested',
    );
  });
}
