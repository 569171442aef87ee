import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveLogger } from '../di/resolve';
import { ConfigurationError } from '../errors/configuration-error';
import type { GatehouseHttpOptions } from '../http/gatehouse-http-options';
import { DEFAULT_BODY_LIMIT, readJsonBody } from '../http/json-body';
import { pathOf } from '../http/node-message';
import { refuseTokenInQuery } from '../http/query-token';
import { settledAuthError } from '../http/request-auth';
import { beginRequest } from '../http/request-context';
import { appliesTo } from '../http/request-prefix';
import { setSecurityHeaders } from '../http/security-headers';
import { calledByExpress } from './driver-check';
import type { ExpressHandler, NextFunction } from './express-types';
import { ERRORS_MARK, handledRequests } from './request-marks';
import { routeLayersOf } from './route-table';
import { answerError } from './send';

export type { GatehouseHttpOptions };

type ExpressRequest = IncomingMessage & { body?: unknown; _body?: boolean; app?: unknown };

/**
 * The HTTP groundwork of Gatehouse as one Express middleware, as `gatehouseHttp()` of `gatehouse` is on Koa: a
 * request id in every answer and log line, security headers on every answer, strict JSON body parsing (16 KiB,
 * JSON only), and the bearer token refused in the URL. Install it with `app.use()` BEFORE `useExpressServer()`, and
 * `gatehouseErrors()` AFTER every route: Express sends errors forward, to the error middleware installed last.
 *
 * @example
 * app.use(gatehouseHttp());
 * useExpressServer(app, { routePrefix: '/auth', ...accountRoutes() });
 * app.use(gatehouseErrors());
 */
export function gatehouseHttp(options: GatehouseHttpOptions = {}): ExpressHandler {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const applies = appliesTo(options.prefix);
  let checked = false;
  return function gatehouseHttpMiddleware(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    if (!calledByExpress('gatehouseHttp()', req)) return;
    if (!applies(pathOf(req))) return next();
    if (!checked) checked = warnWithoutErrors(req as ExpressRequest);
    handledRequests.add(req);
    beginRequest(req, res);
    setSecurityHeaders(res);
    answerAuthInOurShape(req, res);
    const request = req as ExpressRequest;
    const parsed = Promise.resolve().then(async () => {
      refuseTokenInQuery(req);
      request.body = await readJsonBody(req, { limit, parsed: request.body });
      // body-parser (which routing-controllers' Express driver puts before each action) skips a parsed body.
      request._body = true;
    });
    parsed.then(
      () => next(),
      (error: unknown) => answerError(req, res, error),
    );
  };
}

/**
 * routing-controllers' default error handler, which a host may keep for its own controllers, answers a required
 * `@CurrentUser()` without a session with its own 401 body and no challenge, and sends it at once (on Koa, our error
 * middleware rewrites it afterwards; on Express the answer is gone by then). So its `res.json` is given our 401
 * when a guard already found the request unauthenticated.
 */
function answerAuthInOurShape(req: IncomingMessage, res: ServerResponse): void {
  const response = res as ServerResponse & { json?: (body: unknown) => unknown };
  const json = response.json;
  if (typeof json !== 'function') return;
  response.json = function (this: ServerResponse, body: unknown) {
    if (this.statusCode === 401 && !this.getHeader('WWW-Authenticate')) {
      const error = settledAuthError(req);
      if (error) {
        this.setHeader('WWW-Authenticate', 'Bearer');
        return json.call(this, error.toJSON());
      }
    }
    return json.call(this, body);
  };
}

/** Says once, at the first request, when the app lacks `gatehouseErrors()`: its errors would be Express's HTML. */
function warnWithoutErrors(req: ExpressRequest): boolean {
  const stack = routeLayersOf(req.app);
  if (!stack) return true;
  const installed = (stack as { handle?: Record<symbol, unknown> }[]).some((layer) => layer.handle?.[ERRORS_MARK]);
  if (!installed) {
    resolveLogger(req).error(
      { error: { name: 'ConfigurationError' } },
      new ConfigurationError(
        "Gatehouse: app.use(gatehouseErrors()) from 'gatehouse/express' is missing after the routes; " +
          'errors and unknown routes are answered by Express (HTML) instead of in JSON',
      ).message,
    );
  }
  return true;
}
