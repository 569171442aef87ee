import { randomUUID } from 'node:crypto';
import type { NewOutboxMessage, OutboxKind } from './outbox-message';
import { TokenSealer } from './token-sealer';

/**
 * Builds the messages the core queues: a fresh id (the message's idempotency key), the raw token sealed for the
 * time it waits, and the give-up time, which for a link is never later than its token's expiry (a link that no
 * longer works is not worth sending).
 */
export class MessageComposer {
  constructor(
    private readonly sealer: TokenSealer,
    private readonly giveUpAfterMs: number,
  ) {}

  /** A message without a link: given up `giveUpAfterMs` after `now`. */
  notice(kind: OutboxKind, now: Date): NewOutboxMessage {
    return { id: randomUUID(), kind, sealedToken: null, createdAt: new Date(now), giveUpAt: this.giveUpAt(now) };
  }

  /** A message carrying `token` in its link: given up when the token expires, if that comes first. */
  link(kind: OutboxKind, now: Date, token: string, tokenExpiresAt: Date): NewOutboxMessage {
    const id = randomUUID();
    const giveUpAt = new Date(Math.min(this.giveUpAt(now).getTime(), tokenExpiresAt.getTime()));
    return { id, kind, sealedToken: this.sealer.seal(token, id), createdAt: new Date(now), giveUpAt };
  }

  private giveUpAt(now: Date): Date {
    return new Date(now.getTime() + this.giveUpAfterMs);
  }
}
