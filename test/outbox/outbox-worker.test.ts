import { expect } from 'chai';
import { MessageComposer } from '../../src/services/message-composer';
import { OUTBOX_KINDS, type OutboxKind } from '../../src/services/outbox-message';
import { OutboxWorker, type OutboxWorkerDeps } from '../../src/outbox/outbox-worker';
import { TokenSealer } from '../../src/services/token-sealer';
import { EmailDeliveryError, type EmailContext } from '../../src/email';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import type { StoredUser } from '../../src/services/user-store';
import { systemClock } from '../../src/services/clock';
import { CapturingLogger } from '../support/capturing-logger';
import { HOUR, ManualClock } from '../support/manual-clock';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { enqueue } from '../support/store-writes';

const SECRET = 'outbox-worker-test-secret-0123456789-abcdef';
const TOKEN = 'Zx3_kP9-qLm2Vb7nR4tY8wE1uI6oA5sD0fG2hJ4kL6c';

/** A memory store with one user, a worker on it, and a composer making messages the way the core does. */
async function setUp(options: Partial<OutboxWorkerDeps> = {}) {
  const store = new MemoryUserStore();
  // The worker's clock is the messages' clock: a test on real time passes `clock: systemClock`.
  const clock = (options.clock ?? new ManualClock()) as ManualClock;
  const sender = new RecordingEmailSender();
  const contexts: EmailContext[] = [];
  sender.onSend = (_message, context) => void contexts.push(context ?? {});
  const logger = new CapturingLogger();
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
  const worker = new OutboxWorker({ store, sender, secretKey: SECRET, clock, logger, random: () => 0.5, ...options });
  const composer = new MessageComposer(new TokenSealer(SECRET), worker.options.giveUpAfterMs);
  const queue = async (kind: OutboxKind, tokenTtlMs = HOUR) => {
    const now = clock.now();
    const message =
      kind === 'verification' || kind === 'passwordReset'
        ? composer.link(kind, now, TOKEN, new Date(now.getTime() + tokenTtlMs))
        : composer.notice(kind, now);
    expect(await enqueue(store, user.id, message)).to.equal(true);
    return message;
  };
  const statusOf = async (id: string) => (await store.outbox.list()).find((entry) => entry.id === id)!;
  const events = (outcome: string) =>
    logger.lines.filter((line) => (line.fields as { outcome?: string }).outcome === outcome);
  return { store, clock, sender, contexts, logger, worker, queue, statusOf, events };
}

describe('OutboxWorker', () => {
  it('hands each kind to its sender operation with the token unsealed and the message id, then records it sent', async () => {
    const t = await setUp();
    const kinds: OutboxKind[] = [
      'verification',
      'passwordReset',
      'emailVerified',
      'passwordChanged',
      'accountDeleted',
      'registrationAttempt',
    ];
    const messages = [];
    for (const kind of kinds) {
      messages.push(await t.queue(kind));
      t.clock.advance(1);
    }
    await t.worker.drain();

    expect(t.sender.sent.map((mail) => [mail.operation, mail.username, mail.email, mail.token])).to.deep.equal([
      ['sendVerification', 'alice', 'alice@example.com', TOKEN],
      ['sendPasswordReset', 'alice', 'alice@example.com', TOKEN],
      ['sendEmailVerified', 'alice', 'alice@example.com', undefined],
      ['sendPasswordChanged', 'alice', 'alice@example.com', undefined],
      ['sendAccountDeleted', 'alice', 'alice@example.com', undefined],
      ['sendRegistrationAttempt', 'alice', 'alice@example.com', undefined],
    ]);
    expect(t.contexts).to.deep.equal(messages.map((message) => ({ messageId: message.id })));
    for (const message of messages) {
      const entry = await t.statusOf(message.id);
      expect([entry.status, entry.hasToken, entry.attempts]).to.deep.equal(['sent', false, 1]);
    }
    expect(t.events('sent')).to.have.length(6);
    expect(t.logger.text()).to.not.include(TOKEN).and.not.include('alice@example.com');
    await t.worker.drain();
    expect(t.sender.sent, 'sent once').to.have.length(6);
  });

  it('retries a failed attempt after the backoff, with the same link, until it goes', async () => {
    const t = await setUp();
    t.sender.failWith = new EmailDeliveryError('passwordReset', { code: 'ESOCKET', command: 'CONN' }, 'down');
    const message = await t.queue('passwordReset');
    await t.worker.drain();
    let entry = await t.statusOf(message.id);
    expect([entry.status, entry.attempts, entry.lastError]).to.deep.equal(['pending', 1, 'EmailDeliveryError:ESOCKET']);
    expect(entry.nextAttemptAt.getTime() - t.clock.now().getTime()).to.equal(5_000);

    t.clock.advance(4_999);
    await t.worker.drain();
    expect(t.sender.sent, 'not due yet').to.have.length(1);
    t.clock.advance(1);
    await t.worker.drain();
    entry = await t.statusOf(message.id);
    expect([entry.attempts, entry.nextAttemptAt.getTime() - t.clock.now().getTime()]).to.deep.equal([2, 10_000]);

    t.sender.failWith = undefined;
    t.clock.advance(10_000);
    await t.worker.drain();
    entry = await t.statusOf(message.id);
    expect([entry.status, entry.attempts, entry.hasToken]).to.deep.equal(['sent', 3, false]);
    expect(t.sender.sent.map((mail) => mail.token)).to.deep.equal([TOKEN, TOKEN, TOKEN]);
    expect(t.events('retry').map((line) => line.level)).to.deep.equal(['warn', 'warn']);
  });

  it('gives up when the next attempt would come after the give-up time: for a link, its token expiry', async () => {
    const t = await setUp();
    t.sender.failWith = new Error('SMTP is down');
    const message = await t.queue('passwordReset', 12_000);
    for (const step of [0, 5_000, 10_000]) {
      t.clock.advance(step);
      await t.worker.drain();
    }
    const entry = await t.statusOf(message.id);
    expect([entry.status, entry.attempts, entry.hasToken, entry.lastError]).to.deep.equal([
      'failed',
      2,
      false,
      'Error',
    ]);
    const [gaveUp] = t.events('failed');
    expect(gaveUp.level).to.equal('error');
    expect(gaveUp.fields).to.include({ reason: 'give_up_time', kind: 'passwordReset', messageId: message.id });
  });

  it('does not send a message whose give-up time passed while nobody could deliver it', async () => {
    const t = await setUp();
    const message = await t.queue('emailVerified');
    t.clock.advance(25 * HOUR);
    await t.worker.drain();
    expect(t.sender.sent).to.deep.equal([]);
    expect((await t.statusOf(message.id)).lastError).to.equal('EXPIRED');
  });

  it('gives up at once on a permanent refusal (5xx to RCPT TO), without retrying', async () => {
    const t = await setUp();
    t.sender.failWith = new EmailDeliveryError(
      'verification',
      { code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 },
      'x',
    );
    const message = await t.queue('verification');
    await t.worker.drain();
    t.clock.advance(HOUR);
    await t.worker.drain();
    const entry = await t.statusOf(message.id);
    expect([entry.status, entry.attempts, entry.lastError]).to.deep.equal([
      'failed',
      1,
      'EmailDeliveryError:EENVELOPE:550',
    ]);
    expect(t.events('failed')[0].fields).to.include({ reason: 'refused' });
  });

  it('fails a link whose token no longer opens (the secret key changed), without sending', async () => {
    const t = await setUp();
    const other = new MessageComposer(new TokenSealer(`${SECRET}-old`), HOUR);
    const message = other.link('verification', t.clock.now(), TOKEN, new Date(t.clock.now().getTime() + HOUR));
    await enqueue(t.store, 'user-1', message);
    await t.worker.drain();
    expect(t.sender.sent).to.deep.equal([]);
    expect((await t.statusOf(message.id)).lastError).to.equal('SealError:ESEAL');
  });

  it('fails the registration-attempt notice for good when the sender has no such operation', async () => {
    const t = await setUp();
    const bare = new RecordingEmailSender();
    bare.kinds = OUTBOX_KINDS.filter((kind) => kind !== 'registrationAttempt');
    const worker = new OutboxWorker({ store: t.store, sender: bare, secretKey: SECRET, clock: t.clock });
    const message = await t.queue('registrationAttempt');
    await worker.drain();
    expect((await t.statusOf(message.id)).lastError).to.equal('UnsupportedMessageError:EINVALIDMESSAGE');
  });

  it("passes the host's locale for the recipient; a hook that throws means the default language", async () => {
    const asked: unknown[] = [];
    const t = await setUp({
      options: {
        locale: async (recipient) => {
          asked.push(recipient);
          if (asked.length === 2) throw new Error('directory down for alice@example.com');
          return 'fr';
        },
      },
    });
    const first = await t.queue('emailVerified');
    await t.worker.drain();
    const second = await t.queue('passwordChanged');
    await t.worker.drain();
    expect(asked[0]).to.deep.equal({ userId: 'user-1', username: 'alice', email: 'alice@example.com' });
    expect(t.contexts).to.deep.equal([{ messageId: first.id, locale: 'fr' }, { messageId: second.id }]);
    expect(t.events('locale_failed')).to.have.length(1);
    expect(t.logger.text()).to.not.include('alice@example.com');
  });

  it('logs a store that cannot be asked for due mail once per outage, and its recovery once', async () => {
    const t = await setUp();
    await t.queue('emailVerified');
    const claim = t.store.outbox.claimDue.bind(t.store.outbox);
    t.store.outbox.claimDue = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    };
    for (let i = 0; i < 3; i++) expect(await t.worker.runOnce()).to.equal(0);
    expect(t.events('claim_failed')).to.have.length(1);
    expect(t.sender.sent).to.have.length(0);

    t.store.outbox.claimDue = claim;
    expect(await t.worker.runOnce()).to.equal(1);
    expect(await t.worker.runOnce()).to.equal(0);
    expect(t.events('claim_recovered')).to.have.length(1);
    expect(t.sender.sent).to.have.length(1);
  });

  it('stop() lets the send under way finish and record, then claims nothing more', async () => {
    const t = await setUp();
    let release!: () => void;
    t.sender.onSend = () => new Promise<void>((resolve) => (release = resolve));
    const held = await t.queue('emailVerified');
    t.worker.nudge();
    while (t.sender.sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const stopped = t.worker.stop();
    await t.queue('passwordChanged');
    t.worker.nudge();
    release();
    await stopped;
    expect((await t.statusOf(held.id)).status).to.equal('sent');
    await t.worker.drain();
    expect(t.sender.sent.map((mail) => mail.operation)).to.deep.equal(['sendEmailVerified']);
    expect((await t.store.outbox.list({ status: 'pending' })).map((entry) => entry.kind)).to.deep.equal([
      'passwordChanged',
    ]);
  });

  it('waits nudgeDelayMs after a nudge, so the mail queued meanwhile goes in one claim; 0 looks at once', async () => {
    for (const nudgeDelayMs of [40, 0]) {
      const t = await setUp({ options: { nudgeDelayMs } });
      const claims: number[] = [];
      const claim = t.store.outbox.claimDue.bind(t.store.outbox);
      t.store.outbox.claimDue = async (...args) => {
        const claimed = await claim(...args);
        claims.push(claimed.length);
        return claimed;
      };
      const started = Date.now();
      for (const kind of ['emailVerified', 'passwordChanged', 'accountDeleted'] as const) {
        await t.queue(kind);
        t.worker.nudge();
      }
      while (t.sender.sent.length < 3) await new Promise((resolve) => setTimeout(resolve, 2));
      const waited = Date.now() - started;
      if (nudgeDelayMs > 0) {
        expect(claims[0]).to.equal(3, 'every message in the first claim');
        expect(waited).to.be.at.least(nudgeDelayMs - 1);
      } else {
        expect(claims[0]).to.equal(1, 'the first nudge looked before the others queued');
      }
      await t.worker.stop();
    }
  });

  it('stop() cancels a nudge still waiting: nothing is claimed after it', async () => {
    const t = await setUp({ options: { nudgeDelayMs: 30 } });
    let claims = 0;
    const claim = t.store.outbox.claimDue.bind(t.store.outbox);
    t.store.outbox.claimDue = async (...args) => {
      claims += 1;
      return claim(...args);
    };
    await t.queue('emailVerified');
    t.worker.nudge();
    await t.worker.stop();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(claims).to.equal(0);
    expect(t.sender.sent).to.have.length(0);
  });

  it('comes back by itself for the retries it scheduled, without polling', async () => {
    const t = await setUp({ clock: systemClock, options: { retryBaseMs: 50, retryMaxMs: 50 } });
    t.sender.failWith = new Error('SMTP is down');
    const message = await t.queue('emailVerified');
    t.worker.nudge();
    while (t.sender.sent.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    t.sender.failWith = undefined;
    const deadline = Date.now() + 5_000;
    while ((await t.statusOf(message.id)).status !== 'sent' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await t.statusOf(message.id)).status).to.equal('sent');
    expect(t.sender.sent).to.have.length(2);
    expect(t.worker.polling).to.equal(false);
  });

  it('several workers on one store deliver each message exactly once', async () => {
    const t = await setUp({ options: { batchSize: 2 } });
    const others = [1, 2, 3].map(
      () =>
        new OutboxWorker({
          store: t.store,
          sender: t.sender,
          secretKey: SECRET,
          clock: t.clock,
          options: { batchSize: 2 },
        }),
    );
    const queued = [];
    for (let i = 0; i < 30; i++) queued.push(await t.queue(i % 2 ? 'passwordChanged' : 'verification'));
    t.sender.onSend = () => new Promise((resolve) => setTimeout(resolve, 1));
    await Promise.all([t.worker, ...others].map((worker) => worker.drain()));
    expect(t.sender.sent).to.have.length(30);
    expect((await t.store.outbox.list({ status: 'sent' })).length).to.equal(30);
  });
});
