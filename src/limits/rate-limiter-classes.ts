import type * as Flexible from 'rate-limiter-flexible';

// rate-limiter-flexible's index requires a limiter for every store it supports (MongoDB, MySQL, DynamoDB, Prisma,
// etcd...: 36 files, about 50 ms of every start); Gatehouse uses the memory one and, when Redis is configured, the
// Redis one. The package declares no "exports", so its files can be required one by one; the classes are the very
// objects its index exports, and `instanceof` holds between the two. Types come from the index.
/* eslint-disable @typescript-eslint/no-require-imports -- see above */

export type RateLimiterAbstract = Flexible.RateLimiterAbstract;
export type RateLimiterMemory = Flexible.RateLimiterMemory;
export type RateLimiterRedis = Flexible.RateLimiterRedis;
export type RateLimiterRes = Flexible.RateLimiterRes;

export const RateLimiterMemory: typeof Flexible.RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory');
export const RateLimiterRes: typeof Flexible.RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes');

/** The Redis limiter's class, loaded only when the limits are kept in Redis. */
export function rateLimiterRedis(): typeof Flexible.RateLimiterRedis {
  return require('rate-limiter-flexible/lib/RateLimiterRedis');
}
