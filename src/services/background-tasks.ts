import { Logger } from './logger';

/**
 * Work the core starts but does not make the caller wait for (the lookup behind a reset or resend request, which
 * queues its mail): the answer must not depend on, or betray through its timing, whether an account exists.
 * Failures are logged, never thrown. `drain()` lets tests and graceful shutdown wait for what is in flight.
 */
export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

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

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** Only the class and code of an error: driver and SMTP messages can quote the data that caused them. */
function describe(error: unknown): { name: string; code?: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}) };
  }
  return { name: typeof error };
}
