import { createParamDecorator } from 'routing-controllers';
import { clientIp } from '../http/client-ip';
import { nodeMessagesOf } from '../http/node-message';
import type { SessionClient } from '../services/types';

/**
 * Injects where the request came from, as a login records it on its session: the client address by the
 * trusted-proxy rule (`clientIp`: `X-Forwarded-For` only past TRUSTED_PROXIES) and the `User-Agent` as sent (the
 * core cuts it to `MAX_USER_AGENT_LENGTH`). Both are for the owner's list of sessions; neither decides anything.
 *
 * @example
 * @Post('/login') login(@Body() body: LoginBody, @SessionClientInfo() client: SessionClient) { ... }
 */
export function SessionClientInfo(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    value: (action): SessionClient => {
      const { req } = nodeMessagesOf(action);
      const userAgent = req.headers['user-agent'];
      const ip = clientIp(req);
      // clientIp's 'unknown' (a socket already gone) is no address to show.
      return { ip: ip === 'unknown' ? null : ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
    },
  });
}
