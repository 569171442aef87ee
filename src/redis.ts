/**
 * `gatehouse/redis`: a Redis client (ioredis) set up for the rate limits, which every instance then shares. Imported
 * on its own, so that a host without Redis never loads ioredis.
 *
 * @example
 * import { connectRedis, waitForRedis } from 'gatehouse/redis';
 * const redis = connectRedis(process.env.REDIS_URL!, logger);
 * await waitForRedis(redis);
 * Container.set(RATE_LIMITS, { redis });
 */
export { connectRedis, waitForRedis } from './limits/redis-client';
