import type { EmailContext, EmailSender, OutgoingEmail } from './email-sender';
import { carriesLink, isOutboxKind, OUTBOX_KINDS, type OutboxKind } from './outbox-message';
import { UnsupportedMessageError } from './sender-operations';

/**
 * The EmailSender of releases before issue 38: one method per kind, the later ones optional. Still accepted wherever
 * a sender is (read through `fromLegacySender`); write new senders with one `send` instead.
 *
 * @deprecated implement `EmailSender.send`; wrap an old sender with `fromLegacySender`.
 */
export interface LegacyEmailSender {
  sendVerification(username: string, email: string, verificationToken: string, context?: EmailContext): Promise<void>;
  sendPasswordReset(username: string, email: string, resetToken: string, context?: EmailContext): Promise<void>;
  sendEmailVerified(username: string, email: string, context?: EmailContext): Promise<void>;
  sendPasswordChanged(username: string, email: string, context?: EmailContext): Promise<void>;
  sendAccountDeleted(username: string, email: string, context?: EmailContext): Promise<void>;
  sendRegistrationAttempt?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendEmailChange?(username: string, newEmail: string, token: string, context?: EmailContext): Promise<void>;
  sendEmailChangeRequested?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendEmailChanged?(username: string, previousEmail: string, context?: EmailContext): Promise<void>;
  sendEmailChangeAttempt?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendSecondFactorEnabled?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendSecondFactorDisabled?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendRecoveryCodesRegenerated?(username: string, email: string, context?: EmailContext): Promise<void>;
  sendRecoveryCodeUsed?(username: string, email: string, context?: EmailContext): Promise<void>;
}

/** The method of an old sender that sends each kind. Frozen: kinds added from now on have no method. */
export const LEGACY_OPERATIONS = {
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
} as const satisfies Partial<Record<OutboxKind, keyof LegacyEmailSender>>;

type LegacyOperation = (username: string, email: string, ...rest: unknown[]) => Promise<void>;

function operationOf(sender: LegacyEmailSender, kind: OutboxKind): LegacyOperation | undefined {
  const name = (LEGACY_OPERATIONS as Partial<Record<OutboxKind, keyof LegacyEmailSender>>)[kind];
  const operation = name === undefined ? undefined : sender[name];
  return typeof operation === 'function' ? (operation as LegacyOperation) : undefined;
}

/**
 * An EmailSender that sends each message through the method of its kind on an old, per-kind sender. It carries the
 * kinds whose method the old sender has, read at each call, as before: a sender without `sendEmailChange` still
 * gets email change refused (`email_change_unavailable`).
 *
 * @example
 * Container.set(EMAIL_SENDER, fromLegacySender(new MyOldSender()));
 */
export function fromLegacySender(legacy: LegacyEmailSender): EmailSender {
  if (legacy === null || typeof legacy !== 'object' || typeof legacy.sendVerification !== 'function') {
    throw new TypeError('Gatehouse: fromLegacySender needs a sender with sendVerification(username, email, token)');
  }
  return {
    get kinds() {
      return OUTBOX_KINDS.filter((kind) => operationOf(legacy, kind) !== undefined);
    },
    send(message: OutgoingEmail, context?: EmailContext): Promise<void> {
      const operation = isOutboxKind(message.kind) ? operationOf(legacy, message.kind) : undefined;
      if (operation === undefined) return Promise.reject(new UnsupportedMessageError());
      return carriesLink(message.kind)
        ? operation.call(legacy, message.username, message.email, (message as { token: string }).token, context)
        : operation.call(legacy, message.username, message.email, context);
    },
  };
}

/**
 * The sender as the core and the worker use it: one with `send` as it is, an old per-kind one (it has
 * `sendVerification`, the method every old sender had) through `fromLegacySender`. Checked once, at start.
 */
export function toEmailSender(sender: EmailSender | LegacyEmailSender): EmailSender {
  const candidate = sender as Partial<EmailSender & LegacyEmailSender> | null;
  if (typeof candidate?.sendVerification === 'function') return fromLegacySender(sender as LegacyEmailSender);
  if (typeof candidate?.send === 'function') return sender as EmailSender;
  throw new TypeError('Gatehouse: the email sender needs a send(message, context) method (see EmailSender)');
}
