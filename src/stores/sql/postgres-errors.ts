// How to read the errors of node-postgres: which ones mean "the database cannot be reached right now" (answered 503,
// retried by the client) and which mean "this transaction lost a conflict" (run again), as opposed to a query that is
// wrong, which is neither.

/** SQLSTATE of a violated UNIQUE or PRIMARY KEY constraint. */
export const PG_UNIQUE_VIOLATION = '23505';

/** The server aborted the transaction to resolve a conflict; running it again is the documented answer. */
const CONFLICT_STATES = new Set(['40P01' /* deadlock_detected */, '40001' /* serialization_failure */]);

/**
 * The server is shutting down, restarting, starting up or full. Class 08 (connection exceptions) counts too; class
 * 53 only for "too many connections", since out-of-memory or disk-full are not cured by a retry a second later.
 */
const UNAVAILABLE_STATES = new Set([
  '57P01' /* admin_shutdown: a fast shutdown or pg_terminate_backend */,
  '57P02' /* crash_shutdown */,
  '57P03' /* cannot_connect_now: starting up or in recovery */,
  '53300' /* too_many_connections */,
]);

/** Socket errors of Node: the server is not there, or the connection to it broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Messages node-postgres and pg-pool raise without a code: a connection that ended under a query or before it
 * (`Connection terminated unexpectedly`, `Connection terminated due to connection timeout`), a client taken out of
 * service by an earlier connection error, and a pool that found no free connection within `connectionTimeoutMillis`.
 */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
];

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** Whether a node-postgres error means the database is unreachable or going away, not that the query was wrong. */
export function isPostgresConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (UNAVAILABLE_STATES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code)) return true;
  if (error instanceof AggregateError) return error.errors.some(isPostgresConnectionFailure);
  return CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** Whether the server aborted a transaction only to resolve a conflict with another one. */
export function isPostgresConflict(error: unknown): boolean {
  return CONFLICT_STATES.has(codeOf(error));
}
