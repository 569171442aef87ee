import type { PageRoute } from '../pages/page-answer';
import { PAGE_METHODS, pageRouteFinder } from '../pages/page-routes';
import { pathOf, queryOf } from '../http/node-message';
import { setSecurityHeaders } from '../http/security-headers';
import { presentsApiKey } from '../http/refuse-api-keys';
import { apiKeyRefusalPage } from '../pages/api-key-refusal';
import { calledByExpress } from './driver-check';
import type { ExpressHandler } from './express-types';
import { pagePathRequests } from './request-marks';
import { send } from './send';

/**
 * An Express middleware answering GET and HEAD for the given page routes below `prefix`, with Gatehouse's security
 * headers. Other requests pass on; on a page path, `gatehouseErrors()` adds GET and HEAD to their `Allow`.
 */
export function pageMiddleware(name: string, prefix: string, routes: Record<string, PageRoute>): ExpressHandler {
  const find = pageRouteFinder(prefix, routes);
  return (req, res, next) => {
    if (!calledByExpress(name, req)) return;
    const route = find(pathOf(req));
    if (!route) return next();
    if (!PAGE_METHODS.includes(req.method ?? '')) {
      pagePathRequests.add(req);
      return next();
    }
    // As `gatehouseHttp()` sets them, for a host that installs the pages without it; a page then replaces the CSP.
    setSecurityHeaders(res);
    // No page takes an API key as a credential: a key-shaped bearer is refused as on every Gatehouse route.
    if (presentsApiKey(req)) return send(req, res, apiKeyRefusalPage());
    Promise.resolve()
      .then(() => route({ query: new URLSearchParams(queryOf(req)) }))
      .then((answer) => send(req, res, answer), next);
  };
}
