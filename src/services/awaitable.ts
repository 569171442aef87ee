/**
 * A value, or a promise of it. The per-request session check returns one: on SQLite the store reads synchronously,
 * and a check that needs no write then finishes without a promise at any layer (each costs the event loop a
 * microtask, and a guarded host route passed through a dozen of them).
 */
export type Awaitable<T> = T | Promise<T>;

/** Whether `value` is a promise (or any thenable a custom store returns). */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * `next` of the value: at once when it is one, when the promise fulfils otherwise. A thenable is taken through
 * `Promise.resolve`, so what comes back is a real promise or a value.
 */
export function whenReady<T, R>(value: Awaitable<T> | PromiseLike<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return isPromiseLike(value) ? Promise.resolve(value as PromiseLike<T>).then(next) : next(value as T);
}
