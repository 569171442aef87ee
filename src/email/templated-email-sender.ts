import { DEFAULT_ACCOUNT_OPTIONS } from '../services/account-options';
import { EmailDeliveryError } from './email-delivery-error';
import type { EmailLinks } from './email-links';
import type { EmailSender } from './email-sender';
import { checkHeaderText, isSafeHeaderText, unsafeRecipientReason } from './header-safety';
import {
  resolveTemplates,
  type EmailMessage,
  type EmailOperation,
  type EmailTemplates,
  type NoticeContext,
} from './templates';

/** Options shared by the built-in senders: what the messages say and where their links point. */
export interface TemplatedEmailSenderOptions {
  /** Builds the verification and reset links, from configuration only. */
  links: EmailLinks;
  /** Product name used in subjects and bodies. Default `'Gatehouse'`. */
  appName?: string;
  /** Replaces some or all of the English messages, e.g. `{ passwordReset: myResetTemplate }`. */
  templates?: Partial<EmailTemplates>;
  /** Lifetime stated in the verification email; keep equal to AccountOptions.verificationTokenTtlMs. Default 24 h. */
  verificationTokenTtlMs?: number;
  /** Lifetime stated in the reset email; keep equal to AccountOptions.resetTokenTtlMs. Default 1 h. */
  resetTokenTtlMs?: number;
}

export const DEFAULT_APP_NAME = 'Gatehouse';

/**
 * Implements the six EmailSender operations once: it builds each message from the templates and hands it, with a
 * recipient already checked for header injection, to `deliver`. A new transport only writes `deliver`.
 */
export abstract class TemplatedEmailSender implements EmailSender {
  private readonly links: EmailLinks;
  private readonly appName: string;
  private readonly templates: EmailTemplates;
  private readonly verificationTokenTtlMs: number;
  private readonly resetTokenTtlMs: number;

  protected constructor(options: TemplatedEmailSenderOptions) {
    if (!options?.links || typeof options.links.verification !== 'function') {
      throw new TypeError('Gatehouse: an email sender needs `links`, an EmailLinks built from the public URL');
    }
    this.links = options.links;
    this.appName = checkHeaderText('appName', options.appName ?? DEFAULT_APP_NAME);
    this.templates = resolveTemplates(options.templates);
    this.verificationTokenTtlMs = checkTtl(options, 'verificationTokenTtlMs');
    this.resetTokenTtlMs = checkTtl(options, 'resetTokenTtlMs');
  }

  /** Sends `message` to `to`, which is a single address free of header-breaking characters. */
  protected abstract deliver(to: string, message: EmailMessage, operation: EmailOperation): Promise<void>;

  sendVerification(username: string, email: string, verificationToken: string): Promise<void> {
    return this.send('verification', username, email, (context) =>
      this.templates.verification({
        ...context,
        link: this.links.verification(verificationToken),
        expiresInMs: this.verificationTokenTtlMs,
      }),
    );
  }

  sendPasswordReset(username: string, email: string, resetToken: string): Promise<void> {
    return this.send('passwordReset', username, email, (context) =>
      this.templates.passwordReset({
        ...context,
        link: this.links.passwordReset(resetToken),
        expiresInMs: this.resetTokenTtlMs,
      }),
    );
  }

  sendEmailVerified(username: string, email: string): Promise<void> {
    return this.send('emailVerified', username, email, (context) => this.templates.emailVerified(context));
  }

  sendPasswordChanged(username: string, email: string): Promise<void> {
    return this.send('passwordChanged', username, email, (context) => this.templates.passwordChanged(context));
  }

  sendAccountDeleted(username: string, email: string): Promise<void> {
    return this.send('accountDeleted', username, email, (context) => this.templates.accountDeleted(context));
  }

  sendRegistrationAttempt(username: string, email: string): Promise<void> {
    return this.send('registrationAttempt', username, email, (context) => this.templates.registrationAttempt(context));
  }

  private async send(
    operation: EmailOperation,
    username: string,
    to: string,
    build: (context: NoticeContext) => EmailMessage,
  ): Promise<void> {
    const refusal = unsafeRecipientReason(to);
    if (refusal) throw new EmailDeliveryError(operation, { code: 'EINVALIDRECIPIENT' }, refusal);
    const message = build({ appName: this.appName, username, email: to });
    if (!isSafeHeaderText(message.subject)) {
      const reason = 'the template built an empty subject or one with control characters';
      throw new EmailDeliveryError(operation, { code: 'EINVALIDSUBJECT' }, reason);
    }
    await this.deliver(to, message, operation);
  }
}

function checkTtl(options: TemplatedEmailSenderOptions, name: 'verificationTokenTtlMs' | 'resetTokenTtlMs'): number {
  const value = options[name];
  if (value === undefined) return DEFAULT_ACCOUNT_OPTIONS[name];
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`Gatehouse: ${name} must be a positive number of milliseconds`);
  }
  return value;
}
