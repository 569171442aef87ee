import type { IncomingMessage, ServerResponse } from 'node:http';

// Typed with Node's own classes, which Express's request and response extend, so that these declarations need
// neither Express nor its types: `app.use()` takes them as they are.

export type NextFunction = (error?: unknown) => void;

/** An Express middleware. */
export type ExpressHandler = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

/** An Express error middleware: Express tells it apart by its four parameters. */
export type ExpressErrorHandler = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
) => void;

/** What Gatehouse needs of an Express application. */
export interface ExpressLikeApp {
  use: (...handlers: never[]) => unknown;
}
