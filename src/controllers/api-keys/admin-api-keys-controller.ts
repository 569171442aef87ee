import {
  Authorized,
  Body,
  CurrentUser,
  Delete,
  Get,
  HttpCode,
  JsonController,
  Post,
  UseBefore,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { ApiKeyIdParam, UserIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { done, PLAIN_ANSWER } from '../plain-answer';
import {
  apiKeyListAnswer,
  createdApiKeyAnswer,
  revokedAnswer,
  serviceAccountAnswer,
  serviceAccountListAnswer,
} from './api-key-answer';
import { ApiKeyCreateBody, ServiceAccountBody } from './api-key-bodies';

const USER_ID = { id: 'The account’s `id`, as `GET /admin/users` lists it.' };

/**
 * What an administrator holding `gatehouse.api_keys.manage` does with API keys: lists and revokes any account's keys
 * (a leak, a departure), creates service accounts (no password, no mailbox, no sign-in) and their keys. As on every
 * admin route, the route only authenticates; the core checks the permission (and, for changes, that the
 * administrator's session was proved recently) before it reads anything, and audits each action.
 */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminApiKeysController {
  @Get('/admin/users/:id/api-keys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List an account’s API keys',
    description: 'Needs `gatehouse.api_keys.manage`; audited. The owner’s view: never a key or its hash.',
    response: 'ApiKeyList',
    errors: ['permission_denied', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listUserApiKeys(
    @CurrentUser({ required: true }) user: AccountUser,
    @UserIdParam() id: string,
    @Accounts() accounts: AccountService,
  ) {
    return apiKeyListAnswer(await accounts.apiKeys.admin.list(asAdmin(user), id));
  }

  @Post('/admin/users/:id/api-keys/revoke-all', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke all of an account’s API keys',
    description:
      'Needs `gatehouse.api_keys.manage` and the administrator’s session proved recently. Every key stops working ' +
      'at once; each revocation is audited, and the owner is mailed once (a service account never).',
    response: 'ApiKeysRevoked',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async revokeAllUserApiKeys(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Accounts() accounts: AccountService,
  ) {
    return revokedAnswer(await accounts.apiKeys.admin.revokeAll(asAdmin(user, token), id));
  }

  @Post('/admin/users/:id/api-keys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create a service account’s API key',
    description:
      'Needs `gatehouse.api_keys.manage` and the administrator’s session proved recently; for a service account ' +
      'only (a person creates their own keys: 409 `not_a_service_account`). The rules of `POST /api-keys` hold, ' +
      'and each scope must be held by the administrator too, so no key is stronger than its maker. Answers the key ' +
      'this once; audited.',
    response: 'CreatedApiKey',
    errors: [
      'permission_denied',
      'reauthentication_required',
      'user_not_found',
      'not_a_service_account',
      'invalid_scope',
      'invalid_api_key_expiry',
      'api_key_name_taken',
      'api_key_limit_reached',
    ],
    bearer: true,
    pathParameters: USER_ID,
  })
  @HttpCode(201)
  @UseBefore(rateLimit('admin.ip'))
  async createServiceAccountApiKey(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Body() body: ApiKeyCreateBody,
    @Accounts() accounts: AccountService,
  ) {
    const input = { name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days };
    return createdApiKeyAnswer(await accounts.apiKeys.admin.createKey(asAdmin(user, token), id, input));
  }

  @Delete('/admin/users/:id/api-keys/:keyId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke an account’s API key',
    description:
      'Needs `gatehouse.api_keys.manage` and the administrator’s session proved recently. The key stops working at ' +
      'once; audited, and the owner is mailed (a service account never).',
    response: 'Detail',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'api_key_not_found'],
    bearer: true,
    pathParameters: { ...USER_ID, keyId: 'The key’s `id`, as `GET /admin/users/{id}/api-keys` lists it.' },
  })
  @UseBefore(rateLimit('admin.ip'))
  async revokeUserApiKey(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @ApiKeyIdParam() keyId: string,
    @Accounts() accounts: AccountService,
  ) {
    await accounts.apiKeys.admin.revoke(asAdmin(user, token), id, keyId);
    return done('API key revoked');
  }

  @Post('/admin/service-accounts', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create a service account',
    description:
      'Needs `gatehouse.api_keys.manage` (and `gatehouse.roles.manage` to give roles, under the usual grant ' +
      'rules) and the administrator’s session proved recently. An account for a machine: no password (a sign-in ' +
      'is refused as a wrong password), no mailbox, no mail; only administrators manage its keys. Disable or ' +
      'delete it with the admin user routes. Audited.',
    response: 'ServiceAccount',
    errors: ['permission_denied', 'reauthentication_required', 'invalid_username', 'invalid_role', 'unknown_role'],
    bearer: true,
  })
  @HttpCode(201)
  @UseBefore(rateLimit('admin.ip'))
  async createServiceAccount(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @Body() body: ServiceAccountBody,
    @Accounts() accounts: AccountService,
  ) {
    const input = { username: body.username, ...(body.roles === undefined ? {} : { roles: body.roles }) };
    return serviceAccountAnswer(await accounts.apiKeys.admin.createServiceAccount(asAdmin(user, token), input));
  }

  @Get('/admin/service-accounts', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List the service accounts',
    description:
      'Needs `gatehouse.api_keys.manage`: each with its roles, creator and whether it is disabled, oldest first.',
    response: 'ServiceAccountList',
    errors: ['permission_denied'],
    bearer: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listServiceAccounts(@CurrentUser({ required: true }) user: AccountUser, @Accounts() accounts: AccountService) {
    return serviceAccountListAnswer(await accounts.apiKeys.admin.listServiceAccounts(asAdmin(user)));
  }
}
