import { expect } from 'chai';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import type { EmailSender } from '../../src/services/email-sender';
import type { LegacyEmailSender } from '../../src/services/legacy-email-sender';
import { MessageComposer } from '../../src/services/message-composer';
import { carriesLink, type NewOutboxMessage, type OutboxKind } from '../../src/services/outbox-message';
import { TokenSealer } from '../../src/services/token-sealer';
import type { StoredUser } from '../../src/services/user-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { HOUR, ManualClock } from './manual-clock';
import { enqueue } from './store-writes';

/** The raw token of every link queued here: shaped like the core's (base64url), so it needs no encoding. */
export const QUEUED_TOKEN = 'Zx3_kP9-qLm2Vb7nR4tY8wE1uI6oA5sD0fG2hJ4kL6c';

/**
 * A memory store with one user, alice, an outbox worker over it with `sender`, and `queue(kind)`, which queues a
 * message of any kind to her as the core composes it (a link carries `QUEUED_TOKEN`), one millisecond apart.
 */
export async function outboxToAlice(sender: EmailSender | LegacyEmailSender, secretKey: string) {
  const store = new MemoryUserStore();
  const clock = new ManualClock();
  const created = await store.transaction((tx) =>
    tx.users.create(
      {
        id: 'user-1',
        username: 'alice',
        usernameKey: 'alice',
        email: 'alice@example.com',
        emailKey: 'alice@example.com',
        passwordHash: 'x',
        createdAt: clock.now(),
      },
      { tokenHash: 'h', userId: 'user-1', purpose: 'verify_email', expiresAt: new Date(clock.now().getTime() + HOUR) },
    ),
  );
  const user = (created as { user: StoredUser }).user;
  const worker = new OutboxWorker({ store, sender, secretKey, clock, random: () => 0.5 });
  const composer = new MessageComposer(new TokenSealer(secretKey), worker.options.giveUpAfterMs);
  const queue = async (kind: OutboxKind): Promise<NewOutboxMessage> => {
    const now = clock.now();
    const message = carriesLink(kind)
      ? composer.link(kind, now, QUEUED_TOKEN, new Date(now.getTime() + HOUR))
      : composer.notice(kind, now);
    expect(await enqueue(store, user.id, message)).to.equal(true);
    clock.advance(1);
    return message;
  };
  return { store, clock, worker, queue };
}
