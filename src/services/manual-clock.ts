import type { Clock } from './clock';

/** A clock moved by hand, so that tests prove expiry without sleeping. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }
}
