import type { AccountContext } from '../account-context';
import { type Awaitable, whenReady } from '../awaitable';
import type { UserStore } from '../user-store';
import { hasValidChecksum, isApiKeyShaped } from './api-key-format';
import type { ApiKeyCheck } from './api-key-records';

/**
 * The key behind a request's bearer: its scopes, its owner, and (for `permission`) the owner's current answer, or
 * null for a string that is not a live key of this deployment (another shape, a bad checksum, unknown, revoked,
 * expired, or an owner disabled since). Shape and checksum are judged first, without reading anything; then one
 * HMAC and the store's one statement. A promise only when the store reads asynchronously.
 *
 * A live key's last use is recorded in the background, at most once per `sessionRefreshIntervalMs` (as a session's
 * idle window moves), with `ip`: a key in a busy loop costs its database one write an interval, not one a request.
 * The key itself never leaves this function: not in a log line, not in an error.
 */
export function checkApiKey(
  core: AccountContext,
  key: string,
  permission?: string,
  ip: string | null = null,
): Awaitable<ApiKeyCheck | null> {
  if (!isApiKeyShaped(key, core.options.apiKeyPrefix) || !hasValidChecksum(key)) return null;
  const keyHash = core.tokens.hash(key);
  try {
    return whenReady(core.store.apiKeys.check(keyHash, permission), (found) => {
      if (!found || found.disabled) return null;
      const now = core.clock.now();
      if (found.expiresAt.getTime() <= now.getTime()) return null;
      recordUse(core, found, now, ip);
      return found;
    });
  } catch (error) {
    // A store that throws rather than rejects still fails as a rejection, as `checkSession` does.
    return Promise.reject(error);
  }
}

/**
 * The keys this process touched lately, per store, and when: requests of one key that arrive together all read the
 * old `lastUsedAt` before the first touch lands, and this keeps them to one write. Entries older than the interval
 * are swept as the map grows, so it holds at most the keys used within one interval.
 */
const touchedByStore = new WeakMap<UserStore, RecentTouches>();

interface RecentTouches {
  at: Map<string, number>;
  sweepAbove: number;
}

const MIN_SWEEP_SIZE = 1024;

function recordUse(core: AccountContext, found: ApiKeyCheck, now: Date, ip: string | null): void {
  const interval = core.options.sessionRefreshIntervalMs;
  const nowMs = now.getTime();
  if (found.lastUsedAt && nowMs - found.lastUsedAt.getTime() < interval) return;
  let recent = touchedByStore.get(core.store);
  if (!recent) {
    recent = { at: new Map(), sweepAbove: MIN_SWEEP_SIZE };
    touchedByStore.set(core.store, recent);
  }
  const last = recent.at.get(found.keyId);
  if (last !== undefined && nowMs - last < interval && nowMs >= last) return;
  recent.at.set(found.keyId, nowMs);
  if (recent.at.size > recent.sweepAbove) sweep(recent, nowMs, interval);
  const { keyId } = found;
  core.background.run('touch_api_key', { keyId, userId: found.user.id }, () =>
    core.store.apiKeys.touch(keyId, now, ip),
  );
}

function sweep(recent: RecentTouches, nowMs: number, interval: number): void {
  for (const [keyId, at] of recent.at) if (nowMs - at >= interval || nowMs < at) recent.at.delete(keyId);
  recent.sweepAbove = Math.max(MIN_SWEEP_SIZE, recent.at.size * 2);
}
