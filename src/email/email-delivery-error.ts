import type { EmailOperation } from './templates';

/** Why a message was not delivered, in fields safe to log: no address, no token, no server response text. */
export interface EmailDeliveryFailure {
  /**
   * `EINVALIDRECIPIENT` or `EINVALIDSUBJECT` when the sender refused the message itself; otherwise nodemailer's code
   * (EENVELOPE, EMESSAGE, ETIMEDOUT, ESOCKET...).
   */
  code: string;
  /** The SMTP command that failed, e.g. `RCPT TO`, `DATA`, `CONN`. */
  command?: string;
  /** The SMTP reply code, e.g. 550. */
  responseCode?: number;
  /** The system error under `code`, e.g. ECONNREFUSED under ESOCKET. */
  originalCode?: string;
}

/**
 * Thrown by the built-in senders. Its message and fields never carry the recipient address, the token or the
 * server's reply text (which often echoes the address), so the core can log it as it is. The underlying error is
 * deliberately not kept as `cause`: loggers serialize causes too.
 */
export class EmailDeliveryError extends Error {
  readonly code: string;
  readonly command?: string;
  readonly responseCode?: number;
  readonly originalCode?: string;

  constructor(
    readonly operation: EmailOperation,
    failure: EmailDeliveryFailure,
    reason: string,
  ) {
    super(`Gatehouse: the ${operation} email was not sent: ${reason}`);
    this.name = 'EmailDeliveryError';
    this.code = failure.code;
    if (failure.command !== undefined) this.command = failure.command;
    if (failure.responseCode !== undefined) this.responseCode = failure.responseCode;
    if (failure.originalCode !== undefined) this.originalCode = failure.originalCode;
  }
}
