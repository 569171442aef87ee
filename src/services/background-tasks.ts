import { isStoreUnavailable } from '../errors/store-unavailable-error';
import { Logger } from './logger';

/**
 * Waits before each new try of a background step the store could not serve: 1, 2, 4 and 8 s, so a database restart
 * of up to 15 s loses no reset or verification mail that was asked for meanwhile (the request was answered long
 * before).
 */
export const STORE_RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000];

/**
 * Work the core starts but does not make the caller wait for (the lookup behind a reset or resend request, which
 * queues its mail): the answer must not depend on, or betray through its timing, whether an account exists.
 * Failures are logged, never thrown. `drain()` lets tests and graceful shutdown wait for what is in flight.
 */
export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly retryDelaysMs: readonly number[] = STORE_RETRY_DELAYS_MS,
  ) {}

  /**
   * The same tasks (one `drain()` and one `stop()` for all of them), with failures logged to `logger`: a request's
   * view of the core logs with the request's id (`AccountContext.forOrigin`).
   */
  withLogger(logger: Logger): BackgroundTasks {
    return Object.create(this, { logger: { value: logger } }) as BackgroundTasks;
  }

  /** `what` names the task in the log; it must not contain a token or an address. */
  run(what: string, fields: object, task: () => Promise<unknown>): void {
    const promise = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.error({ ...fields, task: what, error: describe(error) }, 'background task failed');
        },
      )
      .finally(() => this.pending.delete(promise));
    this.pending.add(promise);
  }

  /**
   * Runs `step`, and again after each of the retry delays while it fails because the store is unavailable; any other
   * failure, the last one, or one after `stop()` is thrown. `step` must be safe to repeat: it runs again only when
   * its store call failed, which (barring a connection lost during COMMIT) means nothing was written.
   */
  async retryWhileUnavailable<T>(step: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (error) {
        const delay = this.retryDelaysMs[attempt];
        if (!isStoreUnavailable(error) || delay === undefined || this.stopping) throw error;
        await this.sleep(delay);
        if (this.stopping) throw error;
      }
    }
  }

  /** Ends the waits between retries at once (their tasks fail and are logged), so a shutdown is not held by them. */
  stop(): void {
    this.stopping = true;
    for (const wake of this.sleepers) wake();
  }

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.sleepers.add(wake);
    });
  }
}

/** Only the class and code of an error: driver and SMTP messages can quote the data that caused them. */
function describe(error: unknown): { name: string; code?: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    };
  }
  return { name: typeof error };
}
