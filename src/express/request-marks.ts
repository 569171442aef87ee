import type { IncomingMessage } from 'node:http';

// What the middlewares of one request tell each other, keyed by Node's request so that nothing a host keeps on the
// request collides with it.

/** Requests `gatehouseHttp()` handles (all of them, or those under its prefix): `gatehouseErrors()` answers those. */
export const handledRequests = new WeakSet<IncomingMessage>();

/** Requests for a page path with a method only the API may take: GET and HEAD join their `Allow` header. */
export const pagePathRequests = new WeakSet<IncomingMessage>();

/** Marks `gatehouseErrors()`'s handlers, so that `gatehouseHttp()` can tell whether the app installed them. */
export const ERRORS_MARK = Symbol.for('gatehouse.express.errors');
