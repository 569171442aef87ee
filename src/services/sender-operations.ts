import type { EmailContext, EmailSender } from './email-sender';
import { carriesLink, type OutboxKind } from './outbox-message';

/** The EmailSender operation that sends each kind of queued message: one table for the worker and the core. */
export const SENDER_OPERATIONS = {
  verification: 'sendVerification',
  passwordReset: 'sendPasswordReset',
  emailVerified: 'sendEmailVerified',
  passwordChanged: 'sendPasswordChanged',
  accountDeleted: 'sendAccountDeleted',
  registrationAttempt: 'sendRegistrationAttempt',
  emailChange: 'sendEmailChange',
  emailChangeRequested: 'sendEmailChangeRequested',
  emailChanged: 'sendEmailChanged',
  emailChangeAttempt: 'sendEmailChangeAttempt',
  secondFactorEnabled: 'sendSecondFactorEnabled',
  secondFactorDisabled: 'sendSecondFactorDisabled',
  recoveryCodesRegenerated: 'sendRecoveryCodesRegenerated',
  recoveryCodeUsed: 'sendRecoveryCodeUsed',
} as const satisfies Record<OutboxKind, keyof EmailSender>;

/**
 * Whether the sender has the operation of this kind. The later operations are optional: the core queues their
 * messages only for a sender that has them, and the worker fails one it cannot send.
 */
export function canSend(sender: EmailSender, kind: OutboxKind): boolean {
  return typeof sender[SENDER_OPERATIONS[kind]] === 'function';
}

type LinkOperation = (username: string, email: string, token: string, context?: EmailContext) => Promise<void>;
type NoticeOperation = (username: string, email: string, context?: EmailContext) => Promise<void>;

/** Calls the operation of `kind` (which the sender must have: see `canSend`); a link message passes its token. */
export function sendByKind(
  sender: EmailSender,
  kind: OutboxKind,
  recipient: { username: string; email: string },
  token: string | undefined,
  context: EmailContext,
): Promise<void> {
  const operation = sender[SENDER_OPERATIONS[kind]]!.bind(sender);
  const { username, email } = recipient;
  return carriesLink(kind)
    ? (operation as LinkOperation)(username, email, token!, context)
    : (operation as NoticeOperation)(username, email, context);
}
