import type { IncomingMessage, ServerResponse } from 'node:http';

// Typed with Node's own classes, which every Koa context carries, so that the main entry's declarations need neither
// Koa nor @types/koa: a host on Express imports the tokens and stores from it too. Koa's `app.use()` takes these.

/** What any Koa context has, and all a Gatehouse Koa middleware's signature needs to say. */
export interface KoaContextLike {
  req: IncomingMessage;
  res: ServerResponse;
}

/** A Koa middleware of Gatehouse's, as Koa's `app.use()` takes it. */
export type KoaMiddleware = (ctx: KoaContextLike, next: () => Promise<unknown>) => Promise<unknown>;

/** What Gatehouse needs of a Koa application. */
export interface KoaLikeApp {
  use(middleware: KoaMiddleware): unknown;
  middleware: unknown[];
  callback(): unknown;
}
