import { Redis } from 'ioredis';
import type { Logger } from '../services/logger';

/**
 * An ioredis client for the rate limits, set up so that Redis trouble never holds a request: commands fail at
 * once while it is disconnected (no offline queue) and after `commandTimeout` when it hangs, and the limits then
 * count in memory (see `FailoverLimiter`). It reconnects by itself, forever, at most every 2 s. Connection errors
 * are logged once per outage, without the URL (it may hold a password).
 *
 * @example
 * const redis = connectRedis(process.env.REDIS_URL!, logger);
 * Container.set(RATE_LIMITS, { redis });
 */
export function connectRedis(url: string, logger: Logger, options: { commandTimeoutMs?: number } = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let failing = false;
  client.on('error', (error: Error & { code?: string }) => {
    if (failing) return;
    failing = true;
    logger.warn(
      { event: 'redis', outcome: 'error', error: { name: error.name, ...(error.code ? { code: error.code } : {}) } },
      'Redis connection failed; rate limits count in this process until it is back',
    );
  });
  client.on('ready', () => {
    if (failing) logger.info({ event: 'redis', outcome: 'ready' }, 'Redis connection is back');
    failing = false;
  });
  return client;
}

/**
 * Resolves once `client` is ready, or after `timeoutMs` if it is not (the start goes on; the limits count in memory
 * until Redis is back). Without it, the first requests after a start beat the connection and are counted by this
 * process alone, so two fresh instances would each grant the full budget.
 */
export function waitForRedis(client: Redis, timeoutMs = 2_000): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}
