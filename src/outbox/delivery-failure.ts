/** How a failed attempt is recorded and whether another attempt can help. */
export interface DeliveryFailure {
  /**
   * `<error class>:<code>[:<SMTP reply code>]`, e.g. `EmailDeliveryError:EENVELOPE:550`: safe to store and log.
   * Never the error's message, which for SMTP often quotes the address or the server's reply.
   */
  code: string;
  /** True when trying again cannot succeed: the recipient or the message itself was refused. */
  permanent: boolean;
  /** The same, as log fields (class and code only, like every error Gatehouse logs). */
  fields: { name: string; code?: string; responseCode?: number };
}

/** Codes the built-in senders give to messages they refuse to build (see EmailDeliveryError). */
const REFUSED_BY_SENDER = new Set(['EINVALIDRECIPIENT', 'EINVALIDSUBJECT', 'EINVALIDMESSAGE']);
/** SMTP commands whose 5xx reply is about this recipient or this message, not the server's state. */
const PERMANENT_AT = new Set(['RCPT TO', 'DATA']);

/**
 * Reads an error thrown by an EmailSender. Only a 5xx reply to RCPT TO or DATA, or a message the sender itself
 * refused, is permanent: connection failures, timeouts, 4xx replies and authentication failures (a setting an
 * operator can fix) are retried until the give-up time.
 */
export function describeDeliveryFailure(error: unknown): DeliveryFailure {
  const raw = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const name = safe(error instanceof Error ? error.name : typeof error) ?? 'Error';
  const code = typeof raw.code === 'string' || typeof raw.code === 'number' ? safe(String(raw.code)) : undefined;
  const responseCode = Number.isInteger(raw.responseCode) ? (raw.responseCode as number) : undefined;
  const command = typeof raw.command === 'string' ? raw.command : undefined;
  const permanent =
    (code !== undefined && REFUSED_BY_SENDER.has(code)) ||
    (responseCode !== undefined && responseCode >= 500 && responseCode < 600 && PERMANENT_AT.has(command ?? ''));
  const parts = [name, code, responseCode === undefined ? undefined : String(responseCode)].filter(Boolean);
  return {
    code: parts.join(':').slice(0, 64),
    permanent,
    fields: { name, ...(code ? { code } : {}), ...(responseCode === undefined ? {} : { responseCode }) },
  };
}

/** A class name or code as it is, if it looks like one; anything else (free text) is dropped. */
function safe(value: string): string | undefined {
  return /^[A-Za-z0-9_.-]{1,40}$/.test(value) ? value : undefined;
}
