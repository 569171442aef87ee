import type { EmailContext, EmailSender, OutgoingEmail } from '../../src/services/email-sender';
import { LEGACY_OPERATIONS } from '../../src/services/legacy-email-sender';
import type { OutboxKind } from '../../src/services/outbox-message';

/**
 * The name tests give each kind: the method of the old per-kind sender, so their expectations read as before; a kind
 * from after per-kind senders (the passkeys' notices) goes by its own name.
 */
const OPERATION_OF_KIND: Partial<Record<OutboxKind, string>> = LEGACY_OPERATIONS;

type LegacyKind = keyof typeof LEGACY_OPERATIONS;
export type EmailOperation = (typeof LEGACY_OPERATIONS)[LegacyKind] | Exclude<OutboxKind, LegacyKind>;

export interface RecordedEmail {
  operation: EmailOperation;
  username: string;
  email: string;
  token?: string;
}

/**
 * An EmailSender double (one `send`, every kind unless `kinds` is set) that keeps every message, so tests can read
 * tokens and prove what was (not) sent. `failWith` makes every call reject after recording it.
 */
export class RecordingEmailSender implements EmailSender {
  readonly sent: RecordedEmail[] = [];
  failWith?: Error;
  kinds?: readonly OutboxKind[];
  /**
   * Runs inside each call, before it returns: lets a test look at the world as the sender sees it, and at the
   * outbox's context (message id, locale).
   */
  onSend?: (message: RecordedEmail, context?: EmailContext) => void | Promise<void>;

  async send(message: OutgoingEmail, context?: EmailContext): Promise<void> {
    const { username, email } = message;
    const operation = (OPERATION_OF_KIND[message.kind] ?? message.kind) as EmailOperation;
    const recorded: RecordedEmail = { operation, username, email };
    if ('token' in message) recorded.token = message.token;
    this.sent.push(recorded);
    await this.onSend?.(recorded, context);
    if (this.failWith) throw this.failWith;
  }

  /** Every message of this kind, oldest first. */
  of(operation: EmailOperation, email?: string): RecordedEmail[] {
    return this.sent.filter((m) => m.operation === operation && (email === undefined || m.email === email));
  }

  /** The raw token of the newest message of this kind (to this address); throws when there is none. */
  lastToken(operation: 'sendVerification' | 'sendPasswordReset' | 'sendEmailChange', email?: string): string {
    const message = this.of(operation, email).at(-1);
    if (!message?.token) throw new Error(`no ${operation} message${email ? ` to ${email}` : ''} was sent`);
    return message.token;
  }
}
