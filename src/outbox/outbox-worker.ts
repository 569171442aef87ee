import { canSend, UnsupportedMessageError } from '../services/sender-operations';
import type { EmailContext, EmailSender, OutgoingEmail } from '../services/email-sender';
import { toEmailSender, type LegacyEmailSender } from '../services/legacy-email-sender';
import { Clock, systemClock } from '../services/clock';
import { Logger, silentLogger } from '../services/logger';
import type { OutboxQueue } from '../services/user-store';
import { describeDeliveryFailure, type DeliveryFailure } from './delivery-failure';
import { carriesLink, EXPIRED_ERROR, isOutboxKind, type ClaimedMessage } from '../services/outbox-message';
import { resolveOutboxOptions, type OutboxOptions } from '../services/outbox-options';
import { RetrySchedule } from './retry-schedule';
import { TokenSealer } from '../services/token-sealer';

/** How late after a retry is due the worker wakes for it (see `wakeBy`). */
const WAKE_MARGIN_MS = 20;

/** What the worker uses of the store: its outbox queue (a whole `UserStore` will do). */
export interface OutboxWorkerStore {
  readonly outbox: Pick<OutboxQueue, 'claimDue' | 'markSent' | 'markRetry' | 'markFailed'>;
}

export interface OutboxWorkerDeps {
  store: OutboxWorkerStore;
  /** The host's sender, called with the message (raw token included) and `{ messageId, locale }`. */
  sender: EmailSender | LegacyEmailSender;
  /** The core's secret key: it opens the sealed tokens, so it must be the key of the process that queued them. */
  secretKey: string | Buffer;
  options?: Partial<OutboxOptions>;
  clock?: Clock;
  logger?: Logger;
  /** Uniform in [0, 1), for the retry jitter; injectable for tests. */
  random?: () => number;
}

/** Tries to record a send that went out; a database blip there would otherwise mean a duplicate later. */
const RECORD_ATTEMPTS = 3;
const RECORD_RETRY_MS = 250;

/**
 * Delivers the outbox: claims due messages (a batch at a time, under a lease), hands each to the EmailSender with
 * its token unsealed and `{ messageId, locale }`, and records the outcome: sent; or a retry after an exponential,
 * jittered delay; or a failure once the sender refused the message for good or the give-up time came.
 *
 * It runs a pass when nudged (the core does that right after each change that queued mail), when a retry it
 * scheduled comes due, and, once `start()`ed, every `pollIntervalMs` (messages queued by other processes, left by one
 * that died, or whose retries another worker scheduled). Several workers, in one process or many, may run against
 * one database: claims never overlap. One message is sent twice only when a worker dies (or loses its database)
 * between the server accepting it and the outcome being recorded; the copy carries the same Message-ID.
 *
 * @example
 * const worker = new OutboxWorker({ store, sender, secretKey, logger });
 * worker.start();            // poll for due messages
 * await worker.stop();       // at shutdown: no new claims, in-flight sends finish
 */
export class OutboxWorker {
  readonly options: OutboxOptions;
  private readonly store: OutboxWorkerStore;
  private readonly sender: EmailSender;
  private readonly sealer: TokenSealer;
  private readonly schedule: RetrySchedule;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** The passes under way: one at a time per worker. */
  private pass: Promise<void> | null = null;
  /** Nudged while a pass ran: look again before ending it. */
  private again = false;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | undefined;
  /** A nudge waiting out `nudgeDelayMs`. */
  private nudgeTimer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  /** The store failed the last claim: an outage is logged when it starts and when it ends, not at every poll. */
  private claimsFailing = false;

  constructor(deps: OutboxWorkerDeps) {
    this.options = resolveOutboxOptions(deps.options);
    this.store = deps.store;
    this.sender = toEmailSender(deps.sender);
    this.sealer = new TokenSealer(deps.secretKey);
    this.schedule = new RetrySchedule(this.options.retryBaseMs, this.options.retryMaxMs, deps.random);
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? silentLogger;
  }

  /** Whether `start()` is polling. */
  get polling(): boolean {
    return this.pollTimer !== undefined;
  }

  /**
   * Looks for due messages soon (after `nudgeDelayMs`), unless stopped; cheap to call often. Nudges that come while it
   * waits or looks are one: what they queued goes in the same claim.
   */
  nudge(): void {
    if (this.stopped || this.nudgeTimer) return;
    // A pass under way looks again before it ends (`startPass`), so only an idle worker waits.
    if (this.pass || this.options.nudgeDelayMs === 0) return this.startPass();
    // Not unref'd: a script that queued mail and then ends still sends it, at most this delay later.
    this.nudgeTimer = setTimeout(() => this.startPass(), this.options.nudgeDelayMs);
  }

  private startPass(): void {
    this.clearNudge();
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    // Its lines name each message, not the request that nudged: a pass may deliver other messages too.
    this.pass = this.runPasses().finally(() => (this.pass = null));
  }

  private clearNudge(): void {
    if (this.nudgeTimer) clearTimeout(this.nudgeTimer);
    this.nudgeTimer = undefined;
  }

  /** Polls every `pollIntervalMs` (and once now). The timer does not keep the process alive. */
  start(): void {
    this.stopped = false;
    if (this.pollTimer) return;
    this.clearWake();
    this.pollTimer = setInterval(() => this.nudge(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.startPass();
  }

  /**
   * Stops claiming (no new pass starts) and resolves once the pass under way has recorded its sends. Messages it did
   * not reach stay pending for the next worker; nothing is lost.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.clearWake();
    this.clearNudge();
    await this.pass;
  }

  /** Resolves when everything due now has been attempted (for tests and scripts); a stopped worker only finishes. */
  async drain(): Promise<void> {
    while (this.pass) await this.pass;
    if (this.stopped) return;
    this.startPass();
    while (this.pass) await this.pass;
  }

  /** Claims one batch and attempts it; returns how many messages it claimed (0 when nothing was due). */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    let claimed: ClaimedMessage[];
    try {
      claimed = await this.store.outbox.claimDue(
        now,
        new Date(now.getTime() + this.options.leaseMs),
        this.options.batchSize,
      );
    } catch (error) {
      if (!this.claimsFailing) {
        this.logger.warn(
          { event: 'email_delivery', outcome: 'claim_failed', error: describeDeliveryFailure(error).fields },
          'could not look for email to send; trying again at every poll, silently until it works',
        );
      }
      this.claimsFailing = true;
      return 0;
    }
    if (this.claimsFailing) {
      this.claimsFailing = false;
      this.logger.info(
        { event: 'email_delivery', outcome: 'claim_recovered' },
        'looking for email to send works again',
      );
    }
    await Promise.all(claimed.map((message) => this.deliver(message)));
    return claimed.length;
  }

  private async runPasses(): Promise<void> {
    while (!this.stopped) {
      this.again = false;
      const claimed = await this.runOnce();
      if (claimed < this.options.batchSize && !this.again) return;
    }
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    const fields = {
      event: 'email_delivery',
      messageId: message.id,
      kind: safeKind(message.kind),
      userId: message.userId,
      attempt: message.attempts,
    };
    if (this.clock.now().getTime() >= message.giveUpAt.getTime()) {
      return this.fail(message, EXPIRED_ERROR, { ...fields, reason: 'give_up_time' });
    }
    // Written by a later release (the column is not constrained): this one has no template for it and never will.
    if (!isOutboxKind(message.kind)) {
      return this.fail(message, UNKNOWN_KIND_ERROR, { ...fields, reason: 'unknown_kind' });
    }
    let token: string | undefined;
    if (carriesLink(message.kind)) {
      try {
        if (message.sealedToken === null) throw new Error('no sealed token');
        token = this.sealer.open(message.sealedToken, message.id);
      } catch {
        // The secret key changed since it was queued (the token's hash is void anyway), or the row was altered.
        return this.fail(message, 'SealError:ESEAL', { ...fields, reason: 'token_unreadable' });
      }
    }
    const locale = await this.localeOf(message, fields);
    try {
      await this.send(message, token, { messageId: message.id, ...(locale ? { locale } : {}) });
    } catch (error) {
      return this.recordFailure(message, describeDeliveryFailure(error), fields);
    }
    await this.recordSent(message, fields);
  }

  private send(message: ClaimedMessage, token: string | undefined, context: EmailContext): Promise<void> {
    // A message queued while another sender ran (one carrying more kinds) fails for good; it does not throw.
    if (!canSend(this.sender, message.kind)) return Promise.reject(new UnsupportedMessageError());
    const { kind, username, email } = message;
    const outgoing = (
      carriesLink(kind) ? { kind, username, email, token } : { kind, username, email }
    ) as OutgoingEmail;
    return this.sender.send(outgoing, context);
  }

  private async localeOf(message: ClaimedMessage, fields: object): Promise<string | undefined> {
    if (!this.options.locale) return undefined;
    try {
      const locale = await this.options.locale({
        userId: message.userId,
        username: message.username,
        email: message.email,
      });
      return typeof locale === 'string' && locale !== '' ? locale : undefined;
    } catch (error) {
      this.logger.warn(
        { ...fields, outcome: 'locale_failed', error: describeDeliveryFailure(error).fields },
        'the locale hook failed; sending in the default language',
      );
      return undefined;
    }
  }

  private async recordSent(message: ClaimedMessage, fields: object): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.outbox.markSent(message.id, this.clock.now());
        this.logger.info({ ...fields, outcome: 'sent' }, 'email sent');
        return;
      } catch (error) {
        if (attempt < RECORD_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS * attempt));
          continue;
        }
        // Sent, but not recorded: when the lease runs out the message goes again, with the same Message-ID.
        this.logger.error(
          { ...fields, outcome: 'sent_unrecorded', error: describeDeliveryFailure(error).fields },
          'email sent but not recorded; it may be sent again',
        );
        return;
      }
    }
  }

  private async recordFailure(message: ClaimedMessage, failure: DeliveryFailure, fields: object): Promise<void> {
    if (failure.permanent) {
      return this.fail(message, failure.code, { ...fields, reason: 'refused', error: failure.fields });
    }
    const now = this.clock.now().getTime();
    const next = now + this.schedule.delayAfter(message.attempts);
    if (next >= message.giveUpAt.getTime()) {
      return this.fail(message, failure.code, { ...fields, reason: 'give_up_time', error: failure.fields });
    }
    try {
      await this.store.outbox.markRetry(message.id, message.claimId, new Date(next), failure.code, new Date(now));
    } catch (error) {
      // Left claimed: it comes back when the lease runs out.
      this.logger.warn(
        { ...fields, outcome: 'unrecorded', error: describeDeliveryFailure(error).fields },
        'could not record a failed attempt',
      );
      return;
    }
    this.logger.warn(
      { ...fields, outcome: 'retry', error: failure.fields, retryInMs: next - now },
      'email not sent; will retry',
    );
    this.wakeBy(next);
  }

  private async fail(message: ClaimedMessage, code: string, fields: object): Promise<void> {
    try {
      await this.store.outbox.markFailed(message.id, message.claimId, code, this.clock.now());
    } catch (error) {
      this.logger.warn(
        { ...fields, outcome: 'unrecorded', error: describeDeliveryFailure(error).fields },
        'could not record a failure',
      );
      return;
    }
    this.logger.error({ ...fields, outcome: 'failed' }, 'email not sent; gave up');
  }

  /**
   * Without polling, the worker itself comes back for the retries it scheduled (the earliest one first). The timer
   * keeps nothing alive: a process that exits leaves the message pending for the next worker.
   */
  private wakeBy(at: number): void {
    if (this.pollTimer || this.stopped || at >= this.wakeAt) return;
    this.clearWake();
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeAt = Infinity;
        this.wakeTimer = undefined;
        this.nudge();
      },
      // setTimeout runs on a monotonic clock and may fire a millisecond before the wall clock reaches `at`; a claim
      // then would find the message not yet due and leave it to the next poll (none, when not polling).
      Math.max(0, at - this.clock.now().getTime()) + WAKE_MARGIN_MS,
    );
    this.wakeTimer.unref();
  }

  private clearWake(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeAt = Infinity;
  }
}

/** `lastError` of a message whose kind this release does not know. */
const UNKNOWN_KIND_ERROR = 'UnknownKind:EUNKNOWNKIND';

/** A kind read from the database, as a log field: the column is not checked, so only if it looks like a kind. */
function safeKind(kind: unknown): string {
  return typeof kind === 'string' && /^[A-Za-z0-9_.-]{1,32}$/.test(kind) ? kind : 'unreadable';
}
