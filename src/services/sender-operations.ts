import type { EmailSender } from './email-sender';
import type { OutboxKind } from './outbox-message';

/**
 * Whether the sender carries this kind (its `kinds`, absent for all). The core queues the optional messages only for
 * a sender that carries them, and the worker fails one it cannot send.
 */
export function canSend(sender: EmailSender, kind: OutboxKind): boolean {
  const kinds = sender.kinds;
  return kinds === undefined || kinds.includes(kind);
}

/** The sender cannot carry a message of this kind (one it does not list in `kinds`): it never will. */
export class UnsupportedMessageError extends Error {
  override name = 'UnsupportedMessageError';
  readonly code = 'EINVALIDMESSAGE';
}
