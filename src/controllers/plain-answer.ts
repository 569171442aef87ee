/**
 * Every answer of the account routes is a plain object already (and `/me`'s is what USER_SERIALIZER made of the
 * user, sent as JSON), so routing-controllers' class-transformer pass over it (`instanceToPlain`, a deep copy) is
 * skipped: it costs a measurable share of `GET /me`, the hot path of every protected request, and changes nothing.
 */
export const PLAIN_ANSWER = { transformResponse: false };

/** A `{ detail }` confirmation; answers that could reveal whether an address has an account are worded alike. */
export const done = (detail: string) => ({ detail });
