import { EmailSender } from '../../src/email/email-sender';

export type SentOperation =
  | 'sendVerification'
  | 'sendPasswordReset'
  | 'sendEmailVerified'
  | 'sendPasswordChanged'
  | 'sendAccountDeleted'
  | 'sendRegistrationAttempt';

export interface SentMessage {
  operation: SentOperation;
  username: string;
  email: string;
  token?: string;
}

/** An EmailSender double that records every call; `failWith` makes every call reject after recording it. */
export class RecordingSender implements EmailSender {
  readonly sent: SentMessage[] = [];
  failWith?: Error;
  /** Runs inside each call, before it returns: lets a test look at the world as the sender sees it. */
  onSend?: (message: SentMessage) => void | Promise<void>;

  sendVerification(username: string, email: string, token: string) {
    return this.record({ operation: 'sendVerification', username, email, token });
  }
  sendPasswordReset(username: string, email: string, token: string) {
    return this.record({ operation: 'sendPasswordReset', username, email, token });
  }
  sendEmailVerified(username: string, email: string) {
    return this.record({ operation: 'sendEmailVerified', username, email });
  }
  sendPasswordChanged(username: string, email: string) {
    return this.record({ operation: 'sendPasswordChanged', username, email });
  }
  sendAccountDeleted(username: string, email: string) {
    return this.record({ operation: 'sendAccountDeleted', username, email });
  }
  sendRegistrationAttempt(username: string, email: string) {
    return this.record({ operation: 'sendRegistrationAttempt', username, email });
  }

  /** Every message of this kind, oldest first. */
  of(operation: SentOperation, email?: string): SentMessage[] {
    return this.sent.filter((m) => m.operation === operation && (email === undefined || m.email === email));
  }

  /** The raw token of the newest message of this kind (to this address); throws when there is none. */
  lastToken(operation: 'sendVerification' | 'sendPasswordReset', email?: string): string {
    const message = this.of(operation, email).at(-1);
    if (!message?.token) throw new Error(`no ${operation} message${email ? ` to ${email}` : ''} was sent`);
    return message.token;
  }

  private async record(message: SentMessage): Promise<void> {
    this.sent.push(message);
    await this.onSend?.(message);
    if (this.failWith) throw this.failWith;
  }
}
