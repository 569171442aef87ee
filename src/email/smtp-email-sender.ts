import type { Transporter } from 'nodemailer';
import { EmailDeliveryError, type EmailDeliveryFailure } from './email-delivery-error';
import type { EmailContext } from '../services/email-sender';
import { checkHeaderText } from './header-safety';
import { smtpTransportOptions, type SmtpTransportOptions } from './smtp-transport-options';
import { TemplatedEmailSender, type TemplatedEmailSenderOptions } from './templated-email-sender';
import type { EmailMessage, EmailOperation } from './templates';

export interface SmtpEmailSenderOptions extends TemplatedEmailSenderOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://...` (TLS from the start). */
  url?: string;
  /**
   * nodemailer SMTP transport options, for what a URL cannot say (TLS settings, OAuth2...). They override the
   * defaults (pooled, 5 s connection and greeting timeouts, 10 s socket timeout); `url`, if also given, wins over them.
   */
  transport?: SmtpTransportOptions;
  /** The From header, e.g. `'Gatehouse <no-reply@example.com>'`. */
  from: string;
}

/**
 * Sends the account emails (text and HTML) through an SMTP server with nodemailer. A failed send rejects with an
 * EmailDeliveryError that names the SMTP code and command but never the recipient, the token or the server's reply.
 *
 * @example
 * const sender = new SmtpEmailSender({
 *   url: process.env.GATEHOUSE_SMTP_URL,
 *   from: 'Example <no-reply@example.com>',
 *   links: new EmailLinks({ publicUrl: 'https://example.com', prefix: '/auth' }),
 * });
 * // at shutdown: await sender.close();
 */
export class SmtpEmailSender extends TemplatedEmailSender {
  private readonly from: string;
  /** The right-hand side of Message-IDs: the From address's domain. */
  private readonly messageIdDomain: string;
  private readonly transporter: Transporter;

  constructor(options: SmtpEmailSenderOptions) {
    super(options);
    this.from = checkHeaderText('from', options.from);
    if (!this.from.includes('@')) {
      throw new TypeError("Gatehouse: from must contain an address, e.g. 'App <no-reply@example.com>'");
    }
    this.messageIdDomain = domainOf(this.from);
    // The overloads of createTransport are per transport kind; this union is always an SMTP one.
    this.transporter = loadNodemailer().createTransport(smtpTransportOptions(options.url, options.transport) as never);
  }

  protected override async deliver(
    to: string,
    message: EmailMessage,
    operation: EmailOperation,
    context: EmailContext = {},
  ): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.from,
        // Stable across the attempts of one outbox message: a copy delivered twice (a worker that died after the
        // server accepted it) carries the same Message-ID, which lets mail systems and people recognise it.
        ...(isSafeMessageId(context.messageId) ? { messageId: `<${context.messageId}@${this.messageIdDomain}>` } : {}),
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        // RFC 3834: tells auto-responders (vacation notices) not to answer.
        headers: { 'Auto-Submitted': 'auto-generated' },
        // A template is text, never a path or URL for nodemailer to read.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    } catch (error) {
      throw smtpFailure(operation, error);
    }
  }

  /** Closes the pooled connections; a message being sent finishes first. */
  async close(): Promise<void> {
    this.transporter.close();
  }
}

/** The domain of the From address (`Acme <no-reply@acme.example>` → `acme.example`), for Message-IDs. */
function domainOf(from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1];
  return domain && domain.includes('.') ? domain.toLowerCase() : 'gatehouse.invalid';
}

/** An outbox id is a UUID; anything else (a host's own value) is used only if it cannot break the header. */
function isSafeMessageId(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(id);
}

const SAFE_CODE = /^[A-Z][A-Z0-9_]{1,31}$/;
const SAFE_COMMAND = /^[A-Z][A-Z0-9 -]{0,31}$/;

/** Keeps what says why (code, command, reply code) and drops the text, which may echo the address or the body. */
function smtpFailure(operation: EmailOperation, error: unknown): EmailDeliveryError {
  const raw = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const pick = (value: unknown, pattern: RegExp) =>
    typeof value === 'string' && pattern.test(value) ? value : undefined;
  const failure: EmailDeliveryFailure = {
    code: pick(raw.code, SAFE_CODE) ?? 'ESEND',
    command: pick(raw.command, SAFE_COMMAND),
    originalCode: pick(raw.originalCode, SAFE_CODE),
    responseCode: Number.isInteger(raw.responseCode) ? (raw.responseCode as number) : undefined,
  };
  const details = [
    failure.originalCode ? `${failure.code} (${failure.originalCode})` : failure.code,
    failure.command && `at ${failure.command}`,
    failure.responseCode && `reply ${failure.responseCode}`,
  ].filter(Boolean);
  return new EmailDeliveryError(operation, failure, `SMTP failure ${details.join(', ')}`);
}

/** nodemailer is loaded by the first SMTP sender, not with the package: a host that sends mail otherwise never loads it. */
function loadNodemailer(): typeof import('nodemailer') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
  return require('nodemailer');
}
