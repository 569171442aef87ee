import { createParamDecorator } from 'routing-controllers';
import { requireBearerToken } from '../http/bearer-header';
import { nodeMessagesOf } from '../http/node-message';

/**
 * Injects the raw bearer token of the request; a request without one fails with 401 before the action runs.
 *
 * @example
 * @Post('/logout') logout(@BearerToken() token: string) { ... }
 */
export function BearerToken(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    value: (action) => {
      const { req, res } = nodeMessagesOf(action);
      return requireBearerToken(req, res);
    },
  });
}
