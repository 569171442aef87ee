import { createParamDecorator } from 'routing-controllers';
import { nodeMessagesOf } from '../http/node-message';
import { type RequestCredential, requestAuthentication } from '../http/request-auth';
import { whenReady } from '../services/awaitable';

/** What authenticated the request: `{ kind: 'session' }` or `{ kind: 'api_key', keyId, scopes }`. */
export type CurrentCredential = RequestCredential;

/**
 * Injects what authenticated the request: `{ kind: 'session' }`, or `{ kind: 'api_key', keyId, scopes }` for an API
 * key (its id, never the key; the permissions it may use), or undefined without a valid credential. It shares the
 * request's one lookup with the guard and `@CurrentUser()`, so it reads nothing more. A route that does one thing for
 * people and another for machines can tell them apart; `@Authorized('session')` refuses keys altogether.
 *
 * @example
 * @Authorized('perm:reports.read')
 * @Get('/reports')
 * list(@CurrentUser() user: AccountUser, @CurrentCredential() credential: CurrentCredential) { ... }
 */
export function CurrentCredential(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    // A rejection, not a throw: routing-controllers then answers it as any failed parameter, after the guard.
    value: (action) => {
      try {
        return whenReady(requestAuthentication(nodeMessagesOf(action).req), (outcome) =>
          outcome.kind === 'authenticated' ? outcome.credential : undefined,
        );
      } catch (error) {
        return Promise.reject(error);
      }
    },
  });
}
