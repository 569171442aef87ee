import nodemailer, { type Transporter } from 'nodemailer';
import { EmailDeliveryError, type EmailDeliveryFailure } from './email-delivery-error';
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
  private readonly transporter: Transporter;

  constructor(options: SmtpEmailSenderOptions) {
    super(options);
    this.from = checkHeaderText('from', options.from);
    if (!this.from.includes('@')) {
      throw new TypeError("Gatehouse: from must contain an address, e.g. 'App <no-reply@example.com>'");
    }
    // The overloads of createTransport are per transport kind; this union is always an SMTP one.
    this.transporter = nodemailer.createTransport(smtpTransportOptions(options.url, options.transport) as never);
  }

  protected override async deliver(to: string, message: EmailMessage, operation: EmailOperation): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.from,
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
