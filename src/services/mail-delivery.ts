/**
 * What delivers the mail the core queues in the outbox (the outbox worker, `outbox/outbox-worker.ts`, is the one
 * Gatehouse ships). The core only nudges it after each change that queued a message, and drains it for `drain()`;
 * whoever builds the service starts and stops it.
 */
export interface MailDelivery {
  /** Whether it is polling for due mail (started and not stopped). */
  readonly polling: boolean;
  /** A message was just queued: look for due mail now rather than at the next poll. */
  nudge(): void;
  /** Starts polling for mail queued elsewhere, left by a restart, or due for a retry. */
  start(): void;
  /** Stops polling; a send under way finishes and is recorded. */
  stop(): Promise<void>;
  /** Resolves once every message due now has been attempted. */
  drain(): Promise<void>;
}
