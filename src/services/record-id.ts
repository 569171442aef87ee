/**
 * The shape of every id Gatehouse makes, of accounts, sessions, audit events and messages: a UUID in its text form
 * (`randomUUID()`, `orderedId()`, and the migrations' defaults for the rows that existed before their ids). A value
 * of any other shape names nothing Gatehouse holds, so the HTTP layer refuses it before a store is asked (a store
 * would otherwise be handed whatever a URL carried: a NUL byte, or text longer than its column).
 */
export const RECORD_ID_PATTERN = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** The length of every id's text. */
export const RECORD_ID_LENGTH = 36;

/** Whether `value` has the shape of an id Gatehouse makes (not whether anything has it). */
export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && RECORD_ID_PATTERN.test(value);
}
