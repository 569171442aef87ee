import { expect } from 'chai';
import { LEGACY_OPERATIONS, type LegacyEmailSender } from '../../src/services/legacy-email-sender';
import { outboxToAlice, QUEUED_TOKEN as TOKEN } from '../support/outbox-to-alice';

const SECRET = 'outbox-worker-test-secret-0123456789-abcdef';
/** The kinds whose old sender operation is optional. */
const KINDS = [
  'emailChange',
  'emailChangeRequested',
  'emailChanged',
  'emailChangeAttempt',
  'secondFactorEnabled',
  'secondFactorDisabled',
  'recoveryCodesRegenerated',
  'recoveryCodeUsed',
] as const;
const OPERATION_OF = LEGACY_OPERATIONS;

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
  const { store, worker, queue } = await outboxToAlice(sender, SECRET);
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
