export { ManualClock } from '../../src/services/manual-clock';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
