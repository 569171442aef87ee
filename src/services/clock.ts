/** The time source of the core, injected so that expiry is tested by moving time rather than sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
