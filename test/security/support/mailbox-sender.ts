import { EmailLinks } from '../../../src/email/email-links';
import { TemplatedEmailSender } from '../../../src/email/templated-email-sender';
import type { EmailMessage, EmailOperation } from '../../../src/email/templates';

export const PUBLIC_URL = 'https://accounts.example.com';

export interface DeliveredMail {
  to: string;
  operation: EmailOperation;
  message: EmailMessage;
}

/** The built-in templated sender (links from configuration, escaping, header checks) delivering to an array. */
export class MailboxSender extends TemplatedEmailSender {
  readonly delivered: DeliveredMail[] = [];

  constructor() {
    super({ links: new EmailLinks({ publicUrl: PUBLIC_URL, prefix: '/auth' }) });
  }

  protected override async deliver(to: string, message: EmailMessage, operation: EmailOperation): Promise<void> {
    this.delivered.push({ to, operation, message });
  }

  of(operation: EmailOperation): DeliveredMail[] {
    return this.delivered.filter((mail) => mail.operation === operation);
  }

  /** The token of the newest link of this kind, read from the plain-text body as a user would copy it. */
  lastLinkToken(operation: 'verification' | 'passwordReset'): string {
    const mail = this.of(operation).at(-1);
    const match = mail && /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.message.text);
    if (!match) throw new Error(`no ${operation} link was delivered`);
    return match[1];
  }
}
