import { DEFAULT_ACCOUNT_OPTIONS } from '../services/account-options';
import { EmailDeliveryError } from './email-delivery-error';
import type { EmailLinks } from './email-links';
import type { EmailContext, EmailSender, OutgoingEmail } from '../services/email-sender';
import { LINK_KIND_ENTRIES, type LinkLifetimeOption } from './email-kinds';
import { carriesLink, isOutboxKind, OUTBOX_KINDS, type LinkKind, type OutboxKind } from '../services/outbox-message';
import { canSend, UnsupportedMessageError } from '../services/sender-operations';
import { checkHeaderText, isSafeHeaderText, unsafeRecipientReason } from './header-safety';
import {
  resolveLocales,
  resolveTemplates,
  templatesFor,
  type EmailMessage,
  type EmailOperation,
  type EmailTemplates,
  type LinkContext,
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
  /** Lifetime stated in an organization invitation; keep equal to organizations.invitationTtlMs. Default 7 days. */
  invitationTtlMs?: number;
}

export const DEFAULT_APP_NAME = 'Gatehouse';

/**
 * Implements `EmailSender.send` once for every kind: it builds the message from the kind's template (and, for a kind
 * with a link, from its entry in `LINK_KIND_ENTRIES`) and hands it, with a recipient already checked for header
 * injection, to `deliver`. A new transport only writes `deliver`; a new kind is a template (and a registry entry for
 * a link), not a method.
 */
export abstract class TemplatedEmailSender implements EmailSender {
  /** Every kind, but email change when the links cannot point at its page; absent: every kind. */
  readonly kinds?: readonly OutboxKind[];
  private readonly links: EmailLinks;
  private readonly appName: string;
  private readonly templates: EmailTemplates;
  private readonly locales: ReadonlyMap<string, EmailTemplates>;
  private readonly lifetimes: Readonly<Record<LinkLifetimeOption, number>>;

  protected constructor(options: TemplatedEmailSenderOptions) {
    if (!options?.links || typeof options.links.verification !== 'function') {
      throw new TypeError('Gatehouse: an email sender needs `links`, an EmailLinks built from the public URL');
    }
    this.links = options.links;
    this.appName = checkHeaderText('appName', options.appName ?? DEFAULT_APP_NAME);
    this.templates = resolveTemplates(options.templates);
    this.locales = resolveLocales(options.locales, this.templates);
    this.lifetimes = {
      verificationTokenTtlMs: checkTtl(options, 'verificationTokenTtlMs'),
      resetTokenTtlMs: checkTtl(options, 'resetTokenTtlMs'),
      emailChangeTokenTtlMs: checkTtl(options, 'emailChangeTokenTtlMs'),
      invitationTtlMs: checkTtl(options, 'invitationTtlMs'),
    };
    // Links that cannot point at an email-change page (a front end configured without one) leave the sender without
    // the kind, so the core refuses the request (`email_change_unavailable`) instead of queuing a link that could
    // never be built.
    if (!canLinkEmailChange(this.links)) this.kinds = OUTBOX_KINDS.filter((kind) => kind !== 'emailChange');
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

  async send(message: OutgoingEmail, context: EmailContext = {}): Promise<void> {
    const kind = message?.kind;
    if (!isOutboxKind(kind) || !canSend(this, kind)) throw new UnsupportedMessageError();
    const to = message.email;
    const refusal = unsafeRecipientReason(to);
    if (refusal) throw new EmailDeliveryError(kind, { code: 'EINVALIDRECIPIENT' }, refusal);
    const templates = templatesFor(this.locales, context?.locale, this.templates);
    const notice: NoticeContext = { appName: this.appName, username: message.username, email: to };
    const built = carriesLink(kind)
      ? (templates[kind] as (context: LinkContext) => EmailMessage)(this.withLink(kind, notice, message))
      : (templates[kind] as (context: NoticeContext) => EmailMessage)(notice);
    if (!isSafeHeaderText(built.subject)) {
      const reason = 'the template built an empty subject or one with control characters';
      throw new EmailDeliveryError(kind, { code: 'EINVALIDSUBJECT' }, reason);
    }
    await this.deliver(to, built, kind, context ?? {});
  }

  private withLink(kind: LinkKind, notice: NoticeContext, message: OutgoingEmail): LinkContext {
    const entry = LINK_KIND_ENTRIES[kind];
    const token = (message as { token?: unknown }).token;
    return { ...notice, link: entry.link(this.links, token as string), expiresInMs: this.lifetimes[entry.lifetime] };
  }
}

/** `organizations.invitationTtlMs`'s default: 7 days. */
const DEFAULT_INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

function checkTtl(options: TemplatedEmailSenderOptions, name: LinkLifetimeOption): number {
  const value = options[name];
  if (value === undefined)
    return name === 'invitationTtlMs' ? DEFAULT_INVITATION_TTL_MS : DEFAULT_ACCOUNT_OPTIONS[name];
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
