import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

/** nodemailer options of an SMTP transport, pooled or not. */
export type SmtpTransportOptions = SMTPTransport.Options | SMTPPool.Options;

/**
 * nodemailer waits up to 2 minutes for a connection, 30 s for the greeting and 10 minutes on a silent socket; a dead
 * server would hold a request (or a background send) that long. A few seconds is plenty for a mail relay.
 */
export const SMTP_DEFAULTS = {
  // Also bounds the DNS lookup, which nodemailer caps at the connection timeout.
  connectionTimeout: 5_000,
  greetingTimeout: 5_000,
  socketTimeout: 10_000,
  // Reuses connections across messages; close() releases them.
  pool: true,
} as const;

/**
 * Lays the host's `transport` options over the defaults, then the settings of `url` over both (nodemailer reads the
 * URL last). The URL may hold a password, so no message here ever quotes it.
 */
export function smtpTransportOptions(
  url: string | undefined,
  transport: SmtpTransportOptions | undefined,
): SmtpTransportOptions {
  if (url === undefined && transport === undefined) {
    throw new TypeError('Gatehouse: SmtpEmailSender needs `url` (smtp://user:pass@host:port) or `transport` options');
  }
  if (url !== undefined) checkSmtpUrl(url);
  if (transport !== undefined && (transport === null || typeof transport !== 'object')) {
    throw new TypeError('Gatehouse: SmtpEmailSender `transport` must be an object of nodemailer SMTP options');
  }
  return { ...SMTP_DEFAULTS, ...transport, ...(url === undefined ? {} : { url }) } as SmtpTransportOptions;
}

function checkSmtpUrl(url: unknown): void {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || !parsed.hostname) {
    throw new TypeError(
      'Gatehouse: the SMTP url must look like smtp://user:pass@host:port or smtps://user:pass@host:port ' +
        '(its value is not shown because it may hold a password)',
    );
  }
}
