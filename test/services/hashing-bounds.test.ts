import { expect } from 'chai';
import { watchArgon2 } from '../security/support/argon2-calls';
import { AccountError } from '../../src/errors/account-error';
import { parseArgon2Parameters } from '../../src/services/argon2-parameters';
import { BoundedWorkQueue } from '../../src/services/work-queue';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { CHEAP_HASHING } from '../support/fixtures';

/** A task the test finishes by hand, to hold a queue slot for as long as it likes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, task: () => opened };
}

describe('bounded password hashing (C6)', () => {
  describe('BoundedWorkQueue', () => {
    it('runs at most `concurrency` tasks, queues up to `maxQueued`, and refuses the rest at once', async () => {
      const queue = new BoundedWorkQueue(2, 1);
      const gates = [gate(), gate(), gate()];
      const running = gates.map((g) => queue.tryRun(g.task));
      expect(running.every((p) => p !== false)).to.equal(true);
      expect(queue.load).to.deep.equal({ running: 2, queued: 1 });
      expect(queue.saturated).to.equal(true);
      expect(queue.tryRun(async () => 'never')).to.equal(false);
      gates.forEach((g) => g.open());
      await Promise.all(running);
      expect(queue.load).to.deep.equal({ running: 0, queued: 0 });
      expect(queue.saturated).to.equal(false);
    });

    it('hands a freed slot to the oldest waiter, not to a newcomer', async () => {
      const queue = new BoundedWorkQueue(1, 5);
      const order: string[] = [];
      const first = gate();
      const held = queue.tryRun(first.task) as Promise<void>;
      const waiter = queue.tryRun(async () => void order.push('waiter')) as Promise<void>;
      first.open();
      await held;
      // The slot is already the waiter's: a newcomer must queue behind it.
      const newcomer = queue.tryRun(async () => void order.push('newcomer')) as Promise<void>;
      expect(queue.load.running).to.equal(1);
      await Promise.all([waiter, newcomer]);
      expect(order).to.deep.equal(['waiter', 'newcomer']);
    });

    it('frees the slot when a task fails', async () => {
      const queue = new BoundedWorkQueue(1, 0);
      await (queue.tryRun(() => Promise.reject(new Error('boom'))) as Promise<never>).catch(() => undefined);
      expect(queue.load).to.deep.equal({ running: 0, queued: 0 });
      expect(await (queue.tryRun(async () => 'ok') as Promise<string>)).to.equal('ok');
    });
  });

  it('answers service_unavailable with a retry time once the hashing queue is full, for known and unknown users alike', async () => {
    const h = makeHarness({
      options: { hashing: CHEAP_HASHING, hashingQueue: { concurrency: 1, maxQueued: 2 } },
    });
    await h.createVerifiedUser('alice');
    // Computes the dummy hash now, so that every attempt of the burst reaches the queue within the same tick.
    await expectAccountError(h.accounts.login('nobody', 'not the password at all'), 'invalid_credentials');
    const attempts = Array.from({ length: 12 }, (_, i) =>
      h.accounts.login(i % 2 ? 'alice' : 'nobody', 'not the password at all').then(
        () => 'ok',
        (error: AccountError) => error,
      ),
    );
    const outcomes = await Promise.all(attempts);
    const busy = outcomes.filter(
      (o): o is AccountError => o instanceof AccountError && o.code === 'service_unavailable',
    );
    const refused = outcomes.filter((o) => o instanceof AccountError && o.code === 'invalid_credentials');
    // One runs, two wait; the other nine are refused without queueing.
    expect(refused).to.have.length(3);
    expect(busy).to.have.length(9);
    expect(busy.every((error) => error.retryAfterSeconds === 1)).to.equal(true);
    expect(h.logger.lines.some((line) => (line.fields as { event?: string }).event === 'hashing_overloaded')).to.equal(
      true,
    );
    // Once the burst is over the service answers normally again.
    expect(await h.accounts.login('alice', STRONG_PASSWORD)).to.be.a('string');
  });

  it('refuses, without verifying, a stored hash whose argon2 parameters would cost absurd memory or time', async () => {
    const h = makeHarness({ options: { hashing: CHEAP_HASHING } });
    await h.createVerifiedUser('alice');
    const user = (await h.store.users.findByUsernameKey('alice'))!;
    const [, , , , salt, digest] = (await h.store.passwords.hashOf(user.id))!.split('$');
    for (const params of ['m=4194304,t=1,p=1', 'm=1024,t=100000,p=1', 'm=1024,t=1,p=255']) {
      const current = (await h.store.passwords.hashOf(user.id))!;
      const planted = `$argon2id$v=19$${params}$${salt}$${digest}`;
      expect(await h.store.transaction((tx) => tx.passwords.rehash(user.id, current, planted, h.clock.now()))).to.equal(
        true,
      );
      // 4 GiB or 100,000 passes would take seconds at least: it is refused without being verified.
      const argon2 = watchArgon2();
      try {
        await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'invalid_credentials');
      } finally {
        argon2.restore();
      }
      expect(argon2.count, 'argon2 calls').to.equal(0);
    }
    const refusals = h.logger.lines.filter(
      (line) => (line.fields as { event?: string }).event === 'password_hash_refused',
    );
    expect(refusals).to.have.length(3);
    expect(h.logger.text()).not.to.include(digest);
  });

  it('reads the parameters of PHC strings in any order and rejects what is not one', () => {
    expect(parseArgon2Parameters('$argon2id$v=19$m=19456,p=1,t=2$c2FsdA$aGFzaA')).to.deep.equal({
      type: 'argon2id',
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    for (const bad of [
      '',
      'plain',
      '$2b$10$abcdefghijklmnopqrstuv',
      '$argon2id$v=19$m=x,t=2,p=1$s$h',
      '$argon2id$v=19$t=2,p=1$s$h',
    ]) {
      expect(parseArgon2Parameters(bad), bad).to.equal(null);
    }
  });
});
