import { EmailSender } from '../../src/email/email-sender';

export type EmailOperation =
  | 'sendVerification'
  | 'sendPasswordReset'
  | 'sendEmailVerified'
  | 'sendPasswordChanged'
  | 'sendAccountDeleted'
  | 'sendRegistrationAttempt';

export interface RecordedEmail {
  operation: EmailOperation;
  username: string;
  email: string;
  /** The raw token, for the two operations that carry one. */
  token?: string;
}

/** An EmailSender double that keeps every call, so HTTP tests can read tokens and prove what was (not) sent. */
export class RecordingEmailSender implements EmailSender {
  readonly sent: RecordedEmail[] = [];

  async sendVerification(username: string, email: string, token: string) {
    this.sent.push({ operation: 'sendVerification', username, email, token });
  }
  async sendPasswordReset(username: string, email: string, token: string) {
    this.sent.push({ operation: 'sendPasswordReset', username, email, token });
  }
  async sendEmailVerified(username: string, email: string) {
    this.sent.push({ operation: 'sendEmailVerified', username, email });
  }
  async sendPasswordChanged(username: string, email: string) {
    this.sent.push({ operation: 'sendPasswordChanged', username, email });
  }
  async sendAccountDeleted(username: string, email: string) {
    this.sent.push({ operation: 'sendAccountDeleted', username, email });
  }
  async sendRegistrationAttempt(username: string, email: string) {
    this.sent.push({ operation: 'sendRegistrationAttempt', username, email });
  }

  /** Every message of this kind (to this address), oldest first. */
  of(operation: EmailOperation, email?: string): RecordedEmail[] {
    return this.sent.filter((m) => m.operation === operation && (email === undefined || m.email === email));
  }

  /** The raw token of the newest message of this kind to this address; throws when there is none. */
  lastToken(operation: 'sendVerification' | 'sendPasswordReset', email: string): string {
    const token = this.of(operation, email).at(-1)?.token;
    if (!token) throw new Error(`no ${operation} message to ${email} was recorded`);
    return token;
  }
}
