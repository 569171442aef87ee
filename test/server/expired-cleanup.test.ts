import { expect } from 'chai';
import { startExpiredCleanup } from '../../src/server/expired-cleanup';
import { DEFAULT_OUTBOX_OPTIONS } from '../../src/services/outbox-options';
import type { ExpiryCutoffs } from '../../src/services/user-store';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { NullEmailSender } from '../../src/email/null-email-sender';
import { AccountService } from '../../src/services/account-service';
import { TEST_SECRET } from '../support/core-harness';
import { CapturingLogger } from '../support/capturing-logger';

describe('periodic removal of expired sessions and tokens', () => {
  it('runs at the interval, off the request path, and stop() waits for a run in progress', async () => {
    const store = new MemoryUserStore();
    const calls: ExpiryCutoffs[] = [];
    let finishRun!: () => void;
    store.deleteExpired = (cutoffs) => {
      calls.push(cutoffs);
      return new Promise((resolve) => (finishRun = () => resolve(3)));
    };
    const logger = new CapturingLogger();
    const accounts = new AccountService({
      store,
      sender: new NullEmailSender(),
      options: { secretKey: TEST_SECRET, sessionIdleTimeoutMs: 1_000, unverifiedRegistrationTtlMs: 2_000 },
    });
    const cleanup = startExpiredCleanup({ accounts, intervalMs: 20, logger });

    await waitUntil(() => calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(calls, 'a run still going makes the next ticks skip').to.have.length(1);
    const { now, sessionIdleBefore, unverifiedCreatedBefore, outboxChangedBefore } = calls[0];
    expect(now.getTime() - sessionIdleBefore.getTime()).to.equal(1_000);
    expect(now.getTime() - unverifiedCreatedBefore!.getTime()).to.equal(2_000);
    expect(now.getTime() - outboxChangedBefore!.getTime(), 'the default retention').to.equal(
      DEFAULT_OUTBOX_OPTIONS.retentionMs,
    );

    let stopped = false;
    const stopping = cleanup.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stopped, 'stop() waits for the run').to.equal(false);
    finishRun();
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls, 'no run after stop()').to.have.length(1);
    expect(logger.lines.map((entry) => entry.fields)).to.deep.include({ event: 'cleanup', removed: 3 });
  });

  it('logs a failed run and tries again at the next tick', async () => {
    const store = new MemoryUserStore();
    let attempts = 0;
    store.deleteExpired = async () => {
      attempts++;
      if (attempts === 1) throw new StoreUnavailableError('PostgreSQL is unreachable: ECONNREFUSED');
      return 0;
    };
    const logger = new CapturingLogger();
    const accounts = new AccountService({ store, sender: new NullEmailSender(), options: { secretKey: TEST_SECRET } });
    const cleanup = startExpiredCleanup({ accounts, intervalMs: 10, logger });
    await waitUntil(() => attempts >= 2);
    await cleanup.stop();
    expect(logger.lines.find((entry) => entry.level === 'warn')?.fields).to.deep.equal({
      event: 'cleanup',
      outcome: 'failed',
      reason: 'PostgreSQL is unreachable: ECONNREFUSED',
    });
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
