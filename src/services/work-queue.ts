/**
 * Runs at most `concurrency` tasks at once and lets at most `maxQueued` more wait; past that, `run` refuses at once.
 * Password hashing is the only expensive thing Gatehouse does (19 MiB and ~25 ms of a core per hash), so an
 * unbounded pile of logins would grow memory and latency without limit; refusing early keeps both flat.
 */
export class BoundedWorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly maxQueued: number,
  ) {}

  /** How many tasks run now and how many wait; for tests and metrics. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** Whether `tryRun` would refuse a task offered now. */
  get saturated(): boolean {
    return this.running >= this.concurrency && this.waiting.length >= this.maxQueued;
  }

  /** Runs `task` when a slot frees up, or returns false at once when the queue is full (the task never runs). */
  tryRun<T>(task: () => Promise<T>): Promise<T> | false {
    if (this.running < this.concurrency) {
      this.running += 1;
      return this.execute(task);
    }
    if (this.waiting.length >= this.maxQueued) return false;
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.execute(task));
  }

  private async execute<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The slot passes straight to the oldest waiter (the count stays), so arrivals cannot overtake or overshoot.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
