import { expect } from 'chai';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import type { LegacyEmailSender } from '../../src/services/legacy-email-sender';
import { MessageComposer } from '../../src/services/message-composer';
import type { OutboxKind } from '../../src/services/outbox-message';
import { TokenSealer } from '../../src/services/token-sealer';
import type { StoredUser } from '../../src/services/user-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { HOUR, ManualClock } from '../support/manual-clock';
import { enqueue } from '../support/store-writes';

const SECRET = 'outbox-worker-test-secret-0123456789-abcdef';
const TOKEN = 'Zx3_kP9-qLm2Vb7nR4tY8wE1uI6oA5sD0fG2hJ4kL6c';
/** The kinds whose sender operation is optional, each with that operation. */
const OPERATION_OF = {
  emailChange: 'sendEmailChange',
  emailChangeRequested: 'sendEmailChangeRequested',
  emailChanged: 'sendEmailChanged',
  emailChangeAttempt: 'sendEmailChangeAttempt',
  secondFactorEnabled: 'sendSecondFactorEnabled',
  secondFactorDisabled: 'sendSecondFactorDisabled',
  recoveryCodesRegenerated: 'sendRecoveryCodesRegenerated',
  recoveryCodeUsed: 'sendRecoveryCodeUsed',
} as const;
const KINDS = Object.keys(OPERATION_OF) as (keyof typeof OPERATION_OF)[];

/** The required operations, recording nothing; the optional ones are added by each test. */
function baseSender(): LegacyEmailSender {
  const none = async () => {};
  return {
    sendVerification: none,
    sendPasswordReset: none,
    sendEmailVerified: none,
    sendPasswordChanged: none,
    sendAccountDeleted: none,
  };
}

async function setUp(sender: LegacyEmailSender) {
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
  const worker = new OutboxWorker({ store, sender, secretKey: SECRET, clock, random: () => 0.5 });
  const composer = new MessageComposer(new TokenSealer(SECRET), worker.options.giveUpAfterMs);
  const queue = async (kind: OutboxKind) => {
    const now = clock.now();
    const message =
      kind === 'emailChange'
        ? composer.link(kind, now, TOKEN, new Date(now.getTime() + HOUR))
        : composer.notice(kind, now);
    expect(await enqueue(store, user.id, message)).to.equal(true);
    clock.advance(1);
    return message;
  };
  const lastErrorOf = async (id: string) => (await store.outbox.list()).find((entry) => entry.id === id)!.lastError;
  return { worker, queue, lastErrorOf };
}

describe('OutboxWorker with an old per-kind sender: the kinds of its optional operations (email change, second factor)', () => {
  it('hands each to its operation, the link with its token unsealed and the notices with username and address only', async () => {
    const calls: unknown[][] = [];
    const sender: LegacyEmailSender = { ...baseSender() };
    for (const kind of KINDS) {
      Object.assign(sender, {
        [OPERATION_OF[kind]]: async (...args: unknown[]) => void calls.push([OPERATION_OF[kind], ...args.slice(0, -1)]),
      });
    }
    const t = await setUp(sender);
    for (const kind of KINDS) await t.queue(kind);
    await t.worker.drain();
    expect(calls).to.deep.equal([
      ['sendEmailChange', 'alice', 'alice@example.com', TOKEN],
      ['sendEmailChangeRequested', 'alice', 'alice@example.com'],
      ['sendEmailChanged', 'alice', 'alice@example.com'],
      ['sendEmailChangeAttempt', 'alice', 'alice@example.com'],
      ['sendSecondFactorEnabled', 'alice', 'alice@example.com'],
      ['sendSecondFactorDisabled', 'alice', 'alice@example.com'],
      ['sendRecoveryCodesRegenerated', 'alice', 'alice@example.com'],
      ['sendRecoveryCodeUsed', 'alice', 'alice@example.com'],
    ]);
  });

  it('fails each for good when the sender has no such operation', async () => {
    const t = await setUp(baseSender());
    const messages = [];
    for (const kind of KINDS) messages.push(await t.queue(kind));
    await t.worker.drain();
    for (const message of messages) {
      expect(await t.lastErrorOf(message.id), message.kind).to.equal('UnsupportedMessageError:EINVALIDMESSAGE');
    }
  });
});
