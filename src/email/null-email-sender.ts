import { EmailSender } from '../services/email-sender';

/** Sends nothing. For tools that build the account core but trigger no mail (the admin CLI). */
export class NullEmailSender implements EmailSender {
  async sendVerification(): Promise<void> {}
  async sendPasswordReset(): Promise<void> {}
  async sendEmailVerified(): Promise<void> {}
  async sendPasswordChanged(): Promise<void> {}
  async sendAccountDeleted(): Promise<void> {}
}
