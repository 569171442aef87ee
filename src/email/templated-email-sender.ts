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
  /** Builds the verification, reset and email-change links, from configuration only. */
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
  /** Lifetime stated in the email-change link; keep equal to AccountOptions.emailChangeTokenTtlMs. Default 1 h. */
  emailChangeTokenTtlMs?: number;
}

export const DEFAULT_APP_NAME = 'Gatehouse';

/**
 * Implements the EmailSender operations (all fourteen, the optional ones included) once: it builds each message from
 * the templates and hands it, with a recipient already checked for header injection, to `deliver`. A new transport only writes `deliver`.
 */
export abstract class TemplatedEmailSender implements EmailSender {
  private readonly links: EmailLinks;
  private readonly appName: string;
  private readonly templates: EmailTemplates;
  private readonly locales: ReadonlyMap<string, EmailTemplates>;
  private readonly verificationTokenTtlMs: number;
  private readonly resetTokenTtlMs: number;
  private readonly emailChangeTokenTtlMs: number;

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
    this.emailChangeTokenTtlMs = checkTtl(options, 'emailChangeTokenTtlMs');
    // Links that cannot point at an email-change page (a front end configured without one) leave the sender without
    // the operation, so the core refuses the request (`email_change_unavailable`) instead of queuing a link that
    // could never be built.
    if (!canLinkEmailChange(this.links)) Object.defineProperty(this, 'sendEmailChange', { value: undefined });
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

  sendEmailChange(username: string, newEmail: string, changeToken: string, context: EmailContext = {}): Promise<void> {
    return this.send('emailChange', username, newEmail, context, (templates, notice) =>
      templates.emailChange({
        ...notice,
        link: this.links.emailChange(changeToken),
        expiresInMs: this.emailChangeTokenTtlMs,
      }),
    );
  }

  sendEmailChangeRequested(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('emailChangeRequested', username, email, context, (templates, notice) =>
      templates.emailChangeRequested(notice),
    );
  }

  sendEmailChanged(username: string, previousEmail: string, context: EmailContext = {}): Promise<void> {
    return this.send('emailChanged', username, previousEmail, context, (templates, notice) =>
      templates.emailChanged(notice),
    );
  }

  sendEmailChangeAttempt(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('emailChangeAttempt', username, email, context, (templates, notice) =>
      templates.emailChangeAttempt(notice),
    );
  }

  sendSecondFactorEnabled(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('secondFactorEnabled', username, email, context, (templates, notice) =>
      templates.secondFactorEnabled(notice),
    );
  }

  sendSecondFactorDisabled(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('secondFactorDisabled', username, email, context, (templates, notice) =>
      templates.secondFactorDisabled(notice),
    );
  }

  sendRecoveryCodesRegenerated(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('recoveryCodesRegenerated', username, email, context, (templates, notice) =>
      templates.recoveryCodesRegenerated(notice),
    );
  }

  sendRecoveryCodeUsed(username: string, email: string, context: EmailContext = {}): Promise<void> {
    return this.send('recoveryCodeUsed', username, email, context, (templates, notice) =>
      templates.recoveryCodeUsed(notice),
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

function checkTtl(
  options: TemplatedEmailSenderOptions,
  name: 'verificationTokenTtlMs' | 'resetTokenTtlMs' | 'emailChangeTokenTtlMs',
): number {
  const value = options[name];
  if (value === undefined) return DEFAULT_ACCOUNT_OPTIONS[name];
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`Gatehouse: ${name} must be a positive number of milliseconds`);
  }
  return value;
}

/** A host may pass its own links object shaped like EmailLinks from before email change: it has no such link. */
function canLinkEmailChange(links: EmailLinks): boolean {
  const candidate = links as Partial<EmailLinks>;
  return typeof candidate.emailChange === 'function' && candidate.hasEmailChange !== false;
}
