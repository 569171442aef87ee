import { createParamDecorator } from 'routing-controllers';
import { accountsFor } from '../di/resolve';
import { nodeMessagesOf } from '../http/node-message';

/**
 * The account core as this request sees it (`accountsFor(req)`): what the core logs and audits while serving the
 * action carries the request's id and client address. Resolved per request, so a host that sets a DI token after
 * mounting the routes is still obeyed.
 *
 * @example
 * async register(@Body() body: RegisterBody, @Accounts() accounts: AccountService) { ... }
 */
export function Accounts(): (object: object, method: string, index: number) => void {
  return createParamDecorator({ required: false, value: (action) => accountsFor(nodeMessagesOf(action).req) });
}

/** `Accounts()`'s administration (`AccountService.admin`), for the admin routes. */
export function Administrator(): (object: object, method: string, index: number) => void {
  return createParamDecorator({ required: false, value: (action) => accountsFor(nodeMessagesOf(action).req).admin });
}
