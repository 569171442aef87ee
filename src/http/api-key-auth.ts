import type { IncomingMessage } from 'node:http';
import { resolveLogger, resolveRateLimits } from '../di/resolve';
import { ipLimitKey } from '../limits/ip-key';
import type { ApiKeyLimit } from '../limits/rate-limit-options';
import type { RateLimits } from '../limits/rate-limits';
import type { AccountService } from '../services/account-service';
import { hasValidChecksum } from '../services/api-keys/api-key-format';
import type { LimitDecision } from '../services/attempt-limiter';
import { type Awaitable, isPromiseLike } from '../services/awaitable';
import type { ApiKeyCheck } from '../services/api-keys/api-key-records';
import type { AccessQuery, AuthMethod, SessionQuery } from '../services/types';
import { apiKeyNotAllowed, apiKeyRateLimited, invalidApiKey } from './api-key-refusals';
import { clientIp } from './client-ip';
import { AccountHttpError } from './http-errors';
import type { ApiKeyCredential, AuthOutcome } from './auth-outcome';

/** A key's request was made with no sign-in method: `'mfa'` refuses keys before asking. */
const NO_METHODS: readonly AuthMethod[] = Object.freeze([]);

/**
 * Authenticates a bearer that has the shape of one of this deployment's keys (`isApiKeyShaped`), in the order that
 * spends least on a forged or stale key:
 *
 * 1. its address has spent its budget of invalid keys (`api-key-invalid.ip`): 429, nothing read;
 * 2. a bad checksum: 401 `invalid_api_key`, nothing read (it spends the address's budget);
 * 3. `refuseKeys` (the guard's plan has a step no key may pass): 403 `api_key_not_allowed`, nothing read;
 * 4. one HMAC and the store's one statement (`checkApiKey`, with the guard's first permission): not live is 401
 *    `invalid_api_key` (and spends the address's budget);
 * 5. the key's own budget (`api-key.key`): 429 `rate_limited`, never a 401 for a good key.
 *
 * With the limits in memory and a store that reads synchronously (SQLite), the whole of it is a value, no promise.
 */
export function lookUpApiKey(
  req: IncomingMessage,
  accounts: AccountService,
  key: string,
  access: SessionQuery | undefined,
  refuseKeys: boolean,
): Awaitable<AuthOutcome> {
  const limits = resolveRateLimits();
  const ip = clientIp(req);
  const ipKey = ipLimitKey(ip);
  const spent = limits.exhaustedNow('api-key-invalid.ip', ipKey);
  if (isPromiseLike(spent)) {
    return spent.then((decision) => afterAddress(req, accounts, key, access, refuseKeys, limits, ip, ipKey, decision));
  }
  return afterAddress(req, accounts, key, access, refuseKeys, limits, ip, ipKey, spent);
}

/** Steps 1 to 5 once the address's budget is known (in the call with the limits in memory). */
function afterAddress(
  req: IncomingMessage,
  accounts: AccountService,
  key: string,
  access: SessionQuery | undefined,
  refuseKeys: boolean,
  limits: RateLimits,
  ip: string,
  ipKey: string,
  spent: LimitDecision,
): Awaitable<AuthOutcome> {
  if (!spent.allowed) return rateLimited(req, 'api-key-invalid.ip', spent);
  if (refuseKeys) {
    return hasValidChecksum(key) ? rejected(new AccountHttpError(apiKeyNotAllowed())) : invalid(limits, ipKey);
  }
  const permission = access?.kind === 'permission' ? access : undefined;
  // `checkApiKey` judges the checksum (null for a bad one, before any read), so it is computed once. clientIp's
  // 'unknown' (a socket already gone) is no address to record.
  const checked = accounts.checkApiKey(key, permission?.name, ip === 'unknown' ? null : ip);
  if (isPromiseLike(checked)) return checked.then((check) => afterCheck(req, limits, ipKey, permission, check));
  return afterCheck(req, limits, ipKey, permission, checked);
}

function afterCheck(
  req: IncomingMessage,
  limits: RateLimits,
  ipKey: string,
  permission: AccessQuery | undefined,
  check: ApiKeyCheck | null,
): Awaitable<AuthOutcome> {
  if (!check) return invalid(limits, ipKey);
  const decision = limits.consumeNow('api-key.key', check.keyId);
  if (isPromiseLike(decision)) return decision.then((counted) => authenticated(req, permission, check, counted));
  return authenticated(req, permission, check, decision);
}

function authenticated(
  req: IncomingMessage,
  permission: AccessQuery | undefined,
  check: ApiKeyCheck,
  decision: LimitDecision,
): AuthOutcome {
  if (!decision.allowed) return rateLimited(req, 'api-key.key', decision);
  const credential: ApiKeyCredential = { kind: 'api_key', keyId: check.keyId, scopes: check.scopes };
  if (permission && check.access !== undefined) {
    const answer = check.access;
    return {
      kind: 'authenticated',
      user: check.user,
      methods: NO_METHODS,
      credential,
      access: { query: permission, answer },
    };
  }
  return { kind: 'authenticated', user: check.user, methods: NO_METHODS, credential };
}

/** 401 `invalid_api_key`, counted against the address (not awaited: with Redis the count lands as the answer goes). */
function invalid(limits: RateLimits, ipKey: string): AuthOutcome {
  void limits.consumeNow('api-key-invalid.ip', ipKey);
  return rejected(new AccountHttpError(invalidApiKey()));
}

function rateLimited(req: IncomingMessage, limit: ApiKeyLimit, decision: LimitDecision): AuthOutcome {
  resolveLogger(req).warn({ event: 'rate_limited', outcome: 'refused', limit }, 'too many API key requests');
  return rejected(new AccountHttpError(apiKeyRateLimited(decision.retryAfterMs)));
}

function rejected(error: AccountHttpError): AuthOutcome {
  return { kind: 'rejected', error };
}
