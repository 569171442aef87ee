import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpErrorForStatus } from '../http/http-errors';
import { pathOf } from '../http/node-message';
import { PAGE_METHODS } from '../pages/page-routes';
import { allowedMethods } from './allowed-methods';
import type { ExpressErrorHandler, ExpressHandler, NextFunction } from './express-types';
import { ERRORS_MARK, handledRequests, pagePathRequests } from './request-marks';
import { answerError, sendError } from './send';

/**
 * The closing handlers of an Express app using Gatehouse: every error of the routes before them (Gatehouse's and
 * the host's) answered in Gatehouse's JSON shape (no stack, no HTML), and a request no route answered as JSON 404,
 * or 405 with `Allow` when the path takes other methods (OPTIONS: 204 with `Allow`), as on Koa. Install it with
 * `app.use()` AFTER every route. It answers the requests `gatehouseHttp()` handled (all of them, or those under its
 * `prefix`) and passes the others on.
 *
 * @example
 * app.use(gatehouseHttp());
 * useExpressServer(app, { controllers: [PostsController], ...accountGuards() });
 * app.use(gatehouseErrors());
 */
export function gatehouseErrors(): [ExpressHandler, ExpressErrorHandler] {
  const unanswered: ExpressHandler = (req, res, next) => {
    // routing-controllers calls next() after an action answers, so an answered request passes here too.
    if (res.headersSent) return;
    if (!handledRequests.has(req)) return next();
    answerUnrouted(req, res);
  };
  const failed: ExpressErrorHandler = (error, req, res, next) => {
    // routing-controllers' default error handler (a host may keep it) answers and then passes the error on: the
    // answer is given, and Express's own handler would drop the connection for it.
    if (res.headersSent && res.writableEnded) return;
    if (!handledRequests.has(req)) return next(error);
    void answerError(req, res, error);
  };
  for (const handler of [unanswered, failed]) Object.defineProperty(handler, ERRORS_MARK, { value: true });
  return [unanswered, failed];
}

function answerUnrouted(req: IncomingMessage, res: ServerResponse): void {
  const methods = allowedMethods(req, pathOf(req));
  // A page path is a known path even where no API route shares it: its methods are the page's own, and the API's.
  if (pagePathRequests.has(req)) methods.push(...PAGE_METHODS.filter((m) => !methods.includes(m)));
  if (methods.length === 0) {
    sendError(req, res, httpErrorForStatus(404));
    return;
  }
  res.setHeader('Allow', methods.join(', '));
  if (req.method === 'OPTIONS') {
    res.statusCode = 204;
    res.end();
    return;
  }
  sendError(req, res, httpErrorForStatus(405));
}

export type { NextFunction };
