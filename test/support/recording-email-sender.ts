import { EmailContext, EmailSender } from '../../src/services/email-sender';

export type EmailOperation =
  | 'sendVerification'
  | 'sendPasswordReset'
  | 'sendEmailVerified'
  | 'sendPasswordChanged'
  | 'sendAccountDeleted'
  | 'sendRegistrationAttempt'
  | 'sendEmailChange'
  | 'sendEmailChangeRequested'
  | 'sendEmailChanged'
  | 'sendEmailChangeAttempt'
  | 'sendSecondFactorEnabled'
  | 'sendSecondFactorDisabled'
  | 'sendRecoveryCodesRegenerated'
  | 'sendRecoveryCodeUsed';

export interface RecordedEmail {
  operation: EmailOperation;
  username: string;
  email: string;
  token?: string;
}

/**
 * An EmailSender double that keeps every call, so tests can read tokens and prove what was (not) sent. `failWith`
 * makes every call reject after recording it.
 */
export class RecordingEmailSender implements EmailSender {
  readonly sent: RecordedEmail[] = [];
  failWith?: Error;
  /**
   * Runs inside each call, before it returns: lets a test look at the world as the sender sees it, and at the
   * outbox's context (message id, locale).
   */
  onSend?: (message: RecordedEmail, context?: EmailContext) => void | Promise<void>;

  sendVerification(username: string, email: string, token: string, context?: EmailContext) {
    return this.record({ operation: 'sendVerification', username, email, token }, context);
  }
  sendPasswordReset(username: string, email: string, token: string, context?: EmailContext) {
    return this.record({ operation: 'sendPasswordReset', username, email, token }, context);
  }
  sendEmailVerified(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendEmailVerified', username, email }, context);
  }
  sendPasswordChanged(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendPasswordChanged', username, email }, context);
  }
  sendAccountDeleted(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendAccountDeleted', username, email }, context);
  }
  sendRegistrationAttempt(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendRegistrationAttempt', username, email }, context);
  }
  sendEmailChange(username: string, email: string, token: string, context?: EmailContext) {
    return this.record({ operation: 'sendEmailChange', username, email, token }, context);
  }
  sendEmailChangeRequested(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendEmailChangeRequested', username, email }, context);
  }
  sendEmailChanged(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendEmailChanged', username, email }, context);
  }
  sendEmailChangeAttempt(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendEmailChangeAttempt', username, email }, context);
  }
  sendSecondFactorEnabled(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendSecondFactorEnabled', username, email }, context);
  }
  sendSecondFactorDisabled(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendSecondFactorDisabled', username, email }, context);
  }
  sendRecoveryCodesRegenerated(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendRecoveryCodesRegenerated', username, email }, context);
  }
  sendRecoveryCodeUsed(username: string, email: string, context?: EmailContext) {
    return this.record({ operation: 'sendRecoveryCodeUsed', username, email }, context);
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

  private async record(message: RecordedEmail, context?: EmailContext): Promise<void> {
    this.sent.push(message);
    await this.onSend?.(message, context);
    if (this.failWith) throw this.failWith;
  }
}
