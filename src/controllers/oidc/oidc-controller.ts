import {
  Body,
  Delete,
  Get,
  HttpCode,
  JsonController,
  OnUndefined,
  Post,
  QueryParams,
  Redirect,
  UseBefore,
  createParamDecorator,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { IdentityIdParam, ProviderParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { SessionClientInfo } from '../../guards/session-client';
import { nodeMessagesOf, queryOf } from '../../http/node-message';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import type { SessionClient } from '../../services/types';
import { PLAIN_ANSWER } from '../plain-answer';
import {
  callbackOf,
  clearedFlowCookie,
  exchangeAnswer,
  flowCookie,
  flowCookieOf,
  identityListAnswer,
} from './oidc-answer';
import { OidcExchangeBody, OidcLinkBody, OidcStartQuery } from './oidc-bodies';

const PROVIDER = { provider: 'A configured provider’s `id`, as `GET /oidc/providers` lists it.' };
// `@Redirect` sends the browser to the string the action returns; this template is never used.
const TO_RETURNED_URL = ':location';

/** What an action answers beside its body: a header, as Node's response holds it (Koa and Express alike). */
type SetHeader = (name: string, value: string) => void;

function AnswerHeader(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    value: (action): SetHeader => {
      const { res } = nodeMessagesOf(action);
      return (name, value) => res.setHeader(name, value);
    },
  });
}

/** The request's query string exactly as received, for the callback URL openid-client reads the answer from. */
function RawQuery(): (object: object, method: string, index: number) => void {
  return createParamDecorator({ required: false, value: (action) => queryOf(nodeMessagesOf(action).req) });
}

/**
 * The flow cookie's value, when the browser sent one. Read from the header here (not routing-controllers'
 * `@CookieParam`, whose parameter would be validated as an object): the first of that name, which is the one of the
 * longest path, the callback's own.
 */
function FlowCookie(): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    value: (action) => flowCookieOf(nodeMessagesOf(action).req.headers.cookie),
  });
}

/**
 * Sign-in with OpenID providers (and GitHub): the browser is sent to the provider with a flow bound to it by a
 * cookie, comes back to the callback, and is sent on to the return page with a one-time code in the fragment, which
 * the page exchanges for the answer of `POST /login`. A signed-in person links and unlinks identities. Every route
 * of a provider not configured here answers 404 `unknown_provider` (docs/oidc.md).
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class OidcController {
  // The routes of fixed paths first, so the document lists them before `/oidc/{provider}/...`.
  @Get('/oidc/providers', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List the sign-in providers',
    description: 'The providers configured on this server, for the buttons of a sign-in page; empty when none is.',
    response: 'OidcProviderList',
  })
  async listProviders(@Accounts() accounts: AccountService) {
    return { providers: accounts.oidc.providers().map(({ id, name }) => ({ id, name })) };
  }

  @Post('/oidc/exchange', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Exchange a provider sign-in’s one-time code',
    description:
      'The return page POSTs the `code` of its URL’s fragment (`#code=...`), which works once and for a minute. ' +
      'Answers exactly what `POST /login` answers (a session, or the second-factor challenge when the account has ' +
      'a second factor and the provider’s `amr`/`acr` is not trusted for one), or `{ "linked": ... }` after a link ' +
      'flow. An account holding the provider’s address is 409 `link_required`: no session, no link, no account. ' +
      'No provider configured on this server: 404 `unknown_provider`.',
    response: 'OidcExchangeAnswer',
    errors: [
      'unknown_provider',
      'invalid_oidc_code',
      'link_required',
      'identity_already_linked',
      'email_domain_not_allowed',
      'unverified_user',
      'account_disabled',
    ],
  })
  @UseBefore(rateLimit('oidc-exchange.ip'))
  async exchange(
    @Body() body: OidcExchangeBody,
    @SessionClientInfo() client: SessionClient,
    @Accounts() accounts: AccountService,
  ) {
    return exchangeAnswer(await accounts.oidc.exchange(body.code, client));
  }

  @Get('/oidc/identities', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List your linked identities',
    description:
      'The provider identities linked to the signed-in account: provider, the address it gave when linked, when ' +
      'linked and last used, and whether its provider is still configured. Never the provider’s subject or tokens.',
    response: 'OidcIdentityList',
    errors: ['unknown_provider'],
    bearer: true,
  })
  @UseBefore(rateLimit('oidc.ip'))
  async listIdentities(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return identityListAnswer(await accounts.oidc.identities(token));
  }

  @Delete('/oidc/identities/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Unlink an identity',
    description:
      'Needs the session proved recently. The identity no longer signs in, and the owner is told by email. ' +
      'Unlinking the account’s last way to sign in (no password, passkey or other identity of a configured ' +
      'provider) is 409 `last_sign_in_method`. An id that is not one of yours is `identity_not_found`.',
    response: null,
    errors: ['unknown_provider', 'reauthentication_required', 'identity_not_found', 'last_sign_in_method'],
    bearer: true,
    pathParameters: { id: 'The identity’s `id`, as `GET /oidc/identities` lists it.' },
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('oidc.ip'))
  async unlinkIdentity(
    @BearerToken() token: string,
    @IdentityIdParam() id: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.oidc.unlink(token, id);
  }

  @Get('/oidc/:provider/start', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Sign in with a provider',
    description:
      'Redirects the browser (302) to the provider’s authorization endpoint (code flow, PKCE S256, state and ' +
      'nonce) and sets the flow cookie `gatehouse_oidc`, which binds the flow to this browser. Link to it from a ' +
      'page; `return_to` picks one of the allowed return URLs.',
    response: null,
    redirect: true,
    headers: { 'Set-Cookie': true },
    errors: ['unknown_provider', 'return_url_not_allowed', 'provider_unavailable'],
    query: true,
    pathParameters: PROVIDER,
  })
  @HttpCode(302)
  @Redirect(TO_RETURNED_URL)
  @UseBefore(rateLimit('oidc.ip'))
  async start(
    @ProviderParam() provider: string,
    @QueryParams() query: OidcStartQuery,
    @AnswerHeader() header: SetHeader,
    @Accounts() accounts: AccountService,
  ): Promise<string> {
    const flow = await accounts.oidc.startSignIn(provider, query.return_to);
    header('Set-Cookie', flowCookie(flow));
    return flow.authorizationUrl;
  }

  @Post('/oidc/:provider/link', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start linking a provider',
    description:
      'Needs the session proved recently. Answers the authorization URL and sets the flow cookie; navigate the ' +
      'browser there. The flow is bound to this account and session: its one-time code exchanges for ' +
      '`{ "linked": ... }`, or 409 `identity_already_linked` when another account holds the identity.',
    response: 'OidcLinkStart',
    headers: { 'Set-Cookie': true },
    errors: ['unknown_provider', 'reauthentication_required', 'return_url_not_allowed', 'provider_unavailable'],
    bearer: true,
    pathParameters: PROVIDER,
  })
  @UseBefore(rateLimit('oidc.ip'))
  async startLink(
    @BearerToken() token: string,
    @ProviderParam() provider: string,
    @Body() body: OidcLinkBody,
    @AnswerHeader() header: SetHeader,
    @Accounts() accounts: AccountService,
  ) {
    const flow = await accounts.oidc.startLink(token, provider, body.return_to);
    header('Set-Cookie', flowCookie(flow));
    return { authorization_url: flow.authorizationUrl };
  }

  @Get('/oidc/:provider/callback', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'The provider’s redirect back',
    description:
      'Not for clients: the provider sends the browser here. The flow (named by `state`, started by this browser’s ' +
      'cookie) is used up first; then the code is exchanged and the ID token checked. Redirects (302) to the ' +
      'return URL with a one-time code in the fragment (`#code=...`, or `#error=...` when the provider refused or ' +
      'its answer did not verify), and clears the cookie. No live flow of this browser: 400 `oidc_flow_invalid`.',
    response: null,
    redirect: true,
    headers: { 'Set-Cookie': true },
    errors: ['unknown_provider', 'oidc_flow_invalid', 'provider_unavailable'],
    pathParameters: PROVIDER,
  })
  @HttpCode(302)
  @Redirect(TO_RETURNED_URL)
  @UseBefore(rateLimit('oidc.ip'))
  async callback(
    @ProviderParam() provider: string,
    @RawQuery() rawQuery: string,
    @FlowCookie() browserSecret: string | undefined,
    @SessionClientInfo() client: SessionClient,
    @AnswerHeader() header: SetHeader,
    @Accounts() accounts: AccountService,
  ): Promise<string> {
    const callback = callbackOf(provider, rawQuery);
    const { redirectTo } = await accounts.oidc.callback(provider, callback.url, browserSecret, client);
    header('Set-Cookie', clearedFlowCookie(callback.cookiePath, callback.secure));
    // The return URL carries the one-time code (in its fragment, which no Referer holds, but say so anyway).
    header('Referrer-Policy', 'no-referrer');
    return redirectTo;
  }
}
