import type { LinkKind, NoticeKind, OutboxKind } from './outbox-message';

/**
 * What the outbox tells a sender about the message it hands over. Every field is optional and senders may ignore
 * the whole argument.
 */
export interface EmailContext {
  /**
   * The outbox message id (a UUID): the same on every attempt of one message and different for every message, so a
   * repeated delivery can be recognised. The SMTP sender makes it the `Message-ID` header.
   */
  messageId?: string;
  /** The recipient's locale tag (`fr`, `pt-BR`) when the host's locale hook gave one; unset: the default language. */
  locale?: string;
}

/** A message that carries a link: `token` is the raw token the link must hold (never log it). */
export interface LinkEmail<K extends LinkKind = LinkKind> {
  kind: K;
  /** Username of the account the message is about. */
  username: string;
  /** The recipient address (for `emailChange`, the new address to confirm). */
  email: string;
  token: string;
}

/**
 * A notice: no link and no secret. For `registrationAttempt` and `emailChangeAttempt`, `username` is the owner's of
 * the address; for `emailChanged`, `email` is the previous address.
 */
export interface NoticeEmail<K extends NoticeKind = NoticeKind> {
  kind: K;
  username: string;
  email: string;
}

/**
 * One message the outbox hands to a sender, told apart by `kind` (see `OUTBOX_KINDS`): `if (message.kind ===
 * 'passwordReset') message.token` type-checks.
 */
export type OutgoingEmail =
  { [K in LinkKind]: LinkEmail<K> }[LinkKind] | { [K in NoticeKind]: NoticeEmail<K> }[NoticeKind];

/**
 * Delivery of the account emails (spec section 6): one `send` for every kind of message, so a new kind needs no new
 * method. Raw tokens reach the sender and nothing else; an implementation must never log them. A sender may throw:
 * the outbox records the failure (its class and code only), retries with backoff, and the account change stands. A
 * sender is called from the delivery worker, never while a request waits.
 *
 * @example
 * const sender: EmailSender = {
 *   kinds: ['verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted'],
 *   async send(message, context) {
 *     await myMailer.post(message.email, message.kind, message.kind === 'verification' ? message.token : undefined);
 *   },
 * };
 */
export interface EmailSender {
  send(message: OutgoingEmail, context?: EmailContext): Promise<void>;
  /**
   * The kinds this sender can carry; absent, every kind. The core queues the optional messages only for a sender
   * that carries them: without `emailChange` an email change is refused (`email_change_unavailable`), without a
   * notice (`registrationAttempt`, the other email-change and the second-factor notices) it is not sent. The five
   * kinds of the first release (verification, passwordReset, emailVerified, passwordChanged, accountDeleted) are
   * expected of every sender.
   */
  readonly kinds?: readonly OutboxKind[];
}
