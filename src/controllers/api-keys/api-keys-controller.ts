import { Body, Delete, Get, HttpCode, JsonController, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { ApiKeyIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { done, PLAIN_ANSWER } from '../plain-answer';
import { apiKeyListAnswer, createdApiKeyAnswer, revokedAnswer } from './api-key-answer';
import { ApiKeyCreateBody, PossessedApiKeyBody } from './api-key-bodies';

/** The one answer of a revocation by possession, whatever was sent: it tells nobody whether a key existed. */
export const POSSESSION_ANSWER = 'If this was a live key, it is revoked';

/**
 * A person's API keys, managed with a session only (a key is refused on every Gatehouse route, `refuseApiKeys`):
 * the list, the scopes a new key may have, creation (with a recently proved session), revoking one or all; and
 * revoking a key by holding it, without any session, for whoever finds a leaked one.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class ApiKeysController {
  // The routes of fixed paths come before `/api-keys/:keyId`, so the document lists them first.
  @Get('/api-keys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List your API keys',
    description:
      'The caller’s keys, expired ones included (`expired: true`, refused, removed by the clean-up), newest first: ' +
      'id, name, last four characters, scopes, when created and until when it works, last use (time and client ' +
      'address, written at most once per refresh interval) and who created it. Never a key or its hash.',
    response: 'ApiKeyList',
    bearer: true,
  })
  @UseBefore(rateLimit('api-keys.ip'))
  async listApiKeys(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return apiKeyListAnswer(await accounts.apiKeys.list(token));
  }

  @Get('/api-keys/scopes', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List the scopes a new key may have',
    description:
      'The permissions the caller holds now through their global roles, without `gatehouse.*` (Gatehouse’s own ' +
      'routes never take a key), sorted: what `POST /api-keys` accepts in `scopes`.',
    response: 'ApiKeyScopes',
    bearer: true,
  })
  @UseBefore(rateLimit('api-keys.ip'))
  async listApiKeyScopes(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return { scopes: await accounts.apiKeys.availableScopes(token) };
  }

  @Post('/api-keys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create an API key',
    description:
      'Needs the session proved recently (`POST /reauthenticate`). Answers the key itself, `{prefix}_` and 38 ' +
      'characters, this once: it is kept only as a keyed hash and cannot be shown again. Scopes must be ' +
      'permissions the caller holds now (checked in the creating transaction); a name already used by another ' +
      'of the caller’s keys is 409 `api_key_name_taken`; at most `apiKeyMaxPerUser` live keys (409 ' +
      '`api_key_limit_reached`). The owner is mailed a notice; the creation is audited (never the key).',
    response: 'CreatedApiKey',
    errors: [
      'reauthentication_required',
      'invalid_scope',
      'invalid_api_key_expiry',
      'api_key_name_taken',
      'api_key_limit_reached',
    ],
    bearer: true,
  })
  @HttpCode(201)
  @UseBefore(rateLimit('api-keys.ip'))
  async createApiKey(
    @BearerToken() token: string,
    @Body() body: ApiKeyCreateBody,
    @Accounts() accounts: AccountService,
  ) {
    const input = { name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days };
    return createdApiKeyAnswer(await accounts.apiKeys.create(token, input));
  }

  @Post('/api-keys/revoke-all', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke all your API keys',
    description: 'Every key of the caller stops working at once, on every instance; each revocation is audited.',
    response: 'ApiKeysRevoked',
    bearer: true,
  })
  @UseBefore(rateLimit('api-keys.ip'))
  async revokeAllApiKeys(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return revokedAnswer(await accounts.apiKeys.revokeAll(token));
  }

  @Post('/api-keys/revoke', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke a key you found',
    description:
      'No session needed: whoever holds a key (a leaked one found in a repository, a log, a ticket) revokes it by ' +
      'sending it in the body, as GitHub’s credential revocation API does. The answer is the same for a live key, ' +
      'an unknown, expired or malformed one, so it tells nothing. When a key went, its owner is mailed and the ' +
      'revocation is audited (never the key). The key goes in the body only: in `Authorization` it would be ' +
      'refused as on every Gatehouse route.',
    response: 'Detail',
  })
  @UseBefore(rateLimit('api-key-revoke.ip'))
  async revokePossessedApiKey(@Body() body: PossessedApiKeyBody, @Accounts() accounts: AccountService) {
    await accounts.apiKeys.revokeByPossession(body.key);
    return done(POSSESSION_ANSWER);
  }

  @Delete('/api-keys/:keyId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke one of your API keys',
    description:
      'The key stops working at once, on every instance; audited. Another account’s key is 404, as an unknown one.',
    response: 'Detail',
    errors: ['api_key_not_found'],
    bearer: true,
    pathParameters: { keyId: 'The key’s `id`, as `GET /api-keys` lists it.' },
  })
  @UseBefore(rateLimit('api-keys.ip'))
  async revokeApiKey(
    @BearerToken() token: string,
    @ApiKeyIdParam() keyId: string,
    @Accounts() accounts: AccountService,
  ) {
    await accounts.apiKeys.revoke(token, keyId);
    return done('API key revoked');
  }
}
