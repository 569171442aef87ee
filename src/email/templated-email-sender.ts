import { DEFAULT_ACCOUNT_OPTIONS } from '../services/account-options';
import { EmailDeliveryError } from './email-delivery-error';
import type { EmailLinks } from './email-links';
import type { EmailContext, EmailSender } from '../services/email-sender';
import { checkHeaderText, isSafeHeaderText, unsafeRecipientReason } from './header-safety';
import {
  resolveLocales,
  resolveTemplates,
  templatesFor,
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
  /** Replaces some or all of the English (default) messages, e.g. `{ passwordReset: myResetTemplate }`. */
  templates?: Partial<EmailTemplates>;
  /**
   * More languages, by locale tag: `{ fr: frenchTemplates, 'pt-BR': brazilianTemplates }`. Each set may be partial
   * (missing messages come from the default set). A message goes in the language of the `locale` its context names
   * (set by the outbox from the host's locale hook; `fr-CA` falls back to `fr`), else in the default language.
   */
  locales?: Record<string, Partial<EmailTemplates>>;
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
  private readonly locales: ReadonlyMap<string, EmailTemplates>;
  private readonly verificationTokenTtlMs: number;
  private readonly resetTokenTtlMs: number;

  protected constructor(options: TemplatedEmailSenderOptions) {
    if (!options?.links || typeof options.links.verification !== 'function') {
      throw new TypeError('Gatehouse: an email sender needs `links`, an EmailLinks built from the public URL');
    }
    this.links = options.links;
    this.appName = checkHeaderText('appName', options.appName ?? DEFAULT_APP_NAME);
    this.templates = resolveTemplates(options.templates);
    this.locales = resolveLocales(options.locales, this.templates);
    this.verificationTokenTtlMs = checkTtl(options, 'verificationTokenTtlMs');
    this.resetTokenTtlMs = checkTtl(options, 'resetTokenTtlMs');
  }

  /**
   * Sends `message` to `to`, which is a single address free of header-breaking characters. `context.messageId`, when
   * set, identifies the message across attempts (see EmailContext).
   */
  protected abstract deliver(
    to: string,
    message: EmailMessage,
    operation: EmailOperation,
    context: EmailContext,
  ): Promise<void>;

  sendVerification(
    username: string,
    email: string,
    verificationToken: string,
    context: EmailContext = {},
  ): Promise<void> {
    return this.send('verification', username, email, context, (templates, notice) =>
      templates.verification({
        ...notice,
        link: this.links.verification(verificationToken),
        expiresInMs: this.verificationTokenTtlMs,
      }),
    );
  }

  sendPasswordReset(username: string, email: string, resetToken: string, context: EmailContext = {}): Promise<void> {
    return this.send('passwordReset', username, email, context, (templates, notice) =>
      templates.passwordReset({
        ...notice,
        link: this.links.passwordReset(resetToken),
        expiresInMs: this.resetTokenTtlMs,
      }),
    );
  }

  sendEmailVerified(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('emailVerified', username, email, context, (templates, notice) => templates.emailVerified(notice));
  }

  sendPasswordChanged(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('passwordChanged', username, email, context, (templates, notice) =>
      templates.passwordChanged(notice),
    );
  }

  sendAccountDeleted(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('accountDeleted', username, email, context, (templates, notice) =>
      templates.accountDeleted(notice),
    );
  }

  sendRegistrationAttempt(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('registrationAttempt', username, email, context, (templates, notice) =>
      templates.registrationAttempt(notice),
    );
  }

  private async send(
    operation: EmailOperation,
    username: string,
    to: string,
    context: EmailContext,
    build: (templates: EmailTemplates, notice: NoticeContext) => EmailMessage,
  ): Promise<void> {
    const refusal = unsafeRecipientReason(to);
    if (refusal) throw new EmailDeliveryError(operation, { code: 'EINVALIDRECIPIENT' }, refusal);
    const templates = templatesFor(this.locales, context?.locale, this.templates);
    const message = build(templates, { appName: this.appName, username, email: to });
    if (!isSafeHeaderText(message.subject)) {
      const reason = 'the template built an empty subject or one with control characters';
      throw new EmailDeliveryError(operation, { code: 'EINVALIDSUBJECT' }, reason);
    }
    await this.deliver(to, message, operation, context ?? {});
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
