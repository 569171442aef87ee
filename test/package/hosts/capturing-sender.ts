import type { EmailSender } from 'gatehouse';

/**
 * The host's own email sender, set through the EMAIL_SENDER token: it keeps the verification tokens it is handed, as
 * a host's test sender would, so that the journey can follow the emailed link.
 */
export class CapturingSender implements EmailSender {
  private readonly verificationTokens = new Map<string, string>();

  async sendVerification(_username: string, email: string, verificationToken: string): Promise<void> {
    this.verificationTokens.set(email, verificationToken);
  }
  async sendPasswordReset(): Promise<void> {}
  async sendEmailVerified(): Promise<void> {}
  async sendPasswordChanged(): Promise<void> {}
  async sendAccountDeleted(): Promise<void> {}

  verificationToken(email: string): string {
    const token = this.verificationTokens.get(email);
    if (token === undefined) throw new Error(`no verification email was sent to ${email}`);
    return token;
  }
}
