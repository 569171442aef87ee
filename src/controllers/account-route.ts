import { apiKeyNotAllowed } from '../http/api-key-refusals';
import { presentsApiKey } from '../http/refuse-api-keys';
import { routeMiddleware } from '../http/route-middleware';
import { requireJsonObject } from './json-object-body';

/**
 * What every Gatehouse route checks before its action, as one class-level `@UseBefore(accountRoute)`: an API key is
 * refused as a credential (403 `api_key_not_allowed`, before anything is read or judged: `refuseApiKeys`' rule), then
 * the body must be a JSON object. One middleware rather than two, because it runs on every Gatehouse request and each
 * middleware is a step of the driver's chain (test/architecture/account-route.test.ts holds every controller to it).
 */
export const accountRoute = routeMiddleware(({ req, body }) => {
  if (presentsApiKey(req)) throw apiKeyNotAllowed();
  requireJsonObject(body);
});
