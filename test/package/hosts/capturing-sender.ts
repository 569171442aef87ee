import type { EmailSender, OutgoingEmail } from 'gatehouse';

/**
 * The host's own email sender, set through the EMAIL_SENDER token: it keeps the verification tokens it is handed, as
 * a host's test sender would, so that the journey can follow the emailed link.
 */
export class CapturingSender implements EmailSender {
  private readonly verificationTokens = new Map<string, string>();

  async send(message: OutgoingEmail): Promise<void> {
    if (message.kind === 'verification') this.verificationTokens.set(message.email, message.token);
  }

  verificationToken(email: string): string {
    const token = this.verificationTokens.get(email);
    if (token === undefined) throw new Error(`no verification email was sent to ${email}`);
    return token;
  }
}
