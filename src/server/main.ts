#!/usr/bin/env node
// First: it sizes libuv's pool, which must happen before anything uses it (see threadpool-size.ts).
import './threadpool-size';
// Second: it must run before routing-controllers requires class-validator (see deferred-modules.ts).
import './deferred-modules';
import 'reflect-metadata';
import { ConfigurationError } from '../errors/configuration-error';
import type { Server } from 'node:http';
import { resolveAccountService } from '../di/resolve';
import { createPinoLogger } from '../logging/pino-logger';
import type { Logger } from '../services/logger';
import type { UserStore } from '../services/user-store';
import { buildSender } from './build-sender';
import { accountOptionsOf, loadConfig, parseLogLevel, ServerConfig } from './config';
import { createApp } from './create-app';
import { ExpiredCleanup, startExpiredCleanup } from './expired-cleanup';
import { createHttpServer } from './http-server';
import { openStore } from './open-store';
import { lowerPoolPriority } from './pool-priority';

/** How long shutdown waits for in-flight requests and mail before giving up. */
const SHUTDOWN_GRACE_MS = 10_000;

// Replaced by one at the configured level as soon as main() has read it.
let logger: Logger = createPinoLogger();

function listen(server: Server, config: ServerConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops accepting, lets in-flight requests finish, stops the email worker (no new claims; a send under way finishes
 * and is recorded; queued mail stays in the database for the next start), then releases the store and the sender.
 */
function onShutdownSignals(
  server: Server,
  store: UserStore,
  sender: { close?(): Promise<void> },
  redis?: { disconnect(): void },
  cleanup?: ExpiredCleanup,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: 'shutdown', signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ event: 'shutdown', outcome: 'timeout' }, 'shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    const accounts = resolveAccountService();
    await accounts.delivery?.stop();
    // The lookups of reset and resend requests answered just now: what they queue waits for the next start. Those
    // waiting out a database outage give up rather than hold the shutdown.
    accounts.stopRetries();
    await accounts.drain();
    await sender.close?.();
    await cleanup?.stop();
    await store.close();
    redis?.disconnect();
    logger.info({ event: 'shutdown', outcome: 'done' }, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

async function main(): Promise<void> {
  logger = createPinoLogger({ level: parseLogLevel(process.env.GATEHOUSE_LOG_LEVEL) });
  const config = loadConfig(process.env, { warn: (message) => logger.warn({ event: 'config' }, message) });
  await deprioritizeHashing(config.hashingNice);
  const store = await openStore(config.database, {
    onConnectionError: (error) =>
      logger.warn({ event: 'database', reason: error.message }, 'an idle database connection was lost; replacing it'),
  });
  const sender = buildSender(config);
  // ioredis is loaded only when Redis is configured.
  const redis = config.redisUrl ? await connectedRedis(config.redisUrl) : undefined;
  const app = createApp({
    store,
    sender,
    options: accountOptionsOf(config),
    prefix: config.prefix,
    logger,
    rateLimits: { ...config.rateLimits, redis, keyPrefix: config.redisKeyPrefix },
    trustedProxies: config.trustedProxies,
    pages: config.pages,
    apiDocs: config.apiDocs,
  });
  // Built now, so that a bad option fails the start and "rate limits are OFF" is said at start.
  const accounts = resolveAccountService();
  const server = createHttpServer(app);
  await listen(server, config);
  // Every instance may run it: batches are short and instances cleaning at once take different rows.
  const cleanup =
    config.cleanupIntervalMs > 0
      ? startExpiredCleanup({ accounts, intervalMs: config.cleanupIntervalMs, logger })
      : undefined;
  // Polls for mail queued by other instances, left by a restart, or due for a retry (GATEHOUSE_OUTBOX_WORKER=off:
  // `gatehouse worker` delivers instead). Every instance may run one: claims never overlap.
  accounts.delivery?.start();
  onShutdownSignals(server, store, sender, redis, cleanup);
  const address = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  logger.info(
    {
      event: 'listening',
      url: `${address}${config.prefix}`,
      database: config.database.kind,
      mailer: config.smtpUrl ? 'smtp' : 'console',
      emailWorker: config.outbox.worker ? 'in-process' : 'off',
      rateLimits: config.rateLimits.enabled === false ? 'off' : redis ? 'redis' : 'memory',
    },
    `Gatehouse listening on ${address}${config.prefix}`,
  );
}

main().catch((error: unknown) => {
  // One line that says what to fix; a configuration error is the expected case.
  const message = error instanceof ConfigurationError ? error.message : describeStartupError(error);
  process.stderr.write(`gatehouse: ${message}\n`);
  process.exit(1);
});

function describeStartupError(error: unknown): string {
  const code = (error as { code?: string })?.code;
  if (code === 'EADDRINUSE') return 'the port is already in use; set PORT to a free one';
  if (code === 'EACCES') return 'not allowed to listen on that port; set PORT above 1024';
  return `could not start: ${error instanceof Error ? error.message : String(error)}`;
}

/** The hashes run below the event loop (pool-priority.ts); where the system refuses, they run beside it, as before. */
async function deprioritizeHashing(nice: number): Promise<void> {
  try {
    const result = await lowerPoolPriority(nice);
    if (result && result.threads < result.poolSize) {
      logger.warn(
        { event: 'hashing_priority', found: result.threads, poolSize: result.poolSize },
        "not every libuv pool thread was found; the rest hash at the event loop's priority",
      );
    }
  } catch (error) {
    logger.warn(
      { event: 'hashing_priority', reason: error instanceof Error ? error.message : String(error) },
      "could not lower the hashing threads' priority; they hash at the event loop's priority",
    );
  }
}

async function connectedRedis(url: string) {
  const { connectRedis, waitForRedis } = await import('../limits/redis-client');
  const redis = connectRedis(url, logger);
  await waitForRedis(redis);
  return redis;
}
