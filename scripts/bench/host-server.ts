/**
 * A host app for `npm run bench`: the standalone server's wiring (configuration from GATEHOUSE_* variables, the same
 * store and `createApp()` as `build/src/server/main.js`) plus host routes behind `@Authorized('perm:reports.read')`
 * and `@Authorized()`, the way a host protects its own routes with Gatehouse's guards (called with a session or an
 * API key). Listens on PORT and says so on stderr.
 */
import '../../src/server/threadpool-size';
import 'reflect-metadata';
import { Authorized, CurrentUser, Get, JsonController, useKoaServer } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoutes } from '../../src/app/account-routes';
import { silentLogger } from '../../src/services/logger';
import type { StoredUser } from '../../src/services/types';
import { buildSender } from '../../src/server/build-sender';
import { loadConfig } from '../../src/server/config';
import { createApp } from '../../src/server/create-app';
import { createHttpServer } from '../../src/server/http-server';
import { openStore } from '../../src/server/open-store';
import { LIMIT_NAMES, type RateLimitOptions } from '../../src/limits/rate-limit-options';

// seed.ts grants this permission and requests GET /host/reports.
const HOST_PERMISSION = 'reports.read';

@Service()
@JsonController('/host')
class ReportsController {
  /** Any valid credential: the API key's row against `GET /me` with a session. */
  @Authorized()
  @Get('/any')
  any(@CurrentUser() user: StoredUser) {
    return { owner: user.username };
  }

  @Authorized(`perm:${HOST_PERMISSION}`)
  @Get('/reports')
  reports(@CurrentUser() user: StoredUser) {
    return { owner: user.username, reports: [] };
  }
}

function unreachableApiKeyLimits(): RateLimitOptions['limits'] {
  const limits: RateLimitOptions['limits'] = {};
  for (const name of LIMIT_NAMES) limits[name] = { points: 1_000_000_000, duration: 60 };
  return limits;
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const store = await openStore(config.database);
  const app = createApp({
    store,
    sender: buildSender(config),
    // The standalone server beside it delivers the mail; this process only answers requests.
    options: { secretKey: config.secretKey, outbox: { worker: false } },
    prefix: config.prefix,
    logger: silentLogger,
    // Counted, but out of reach: the API keys' budgets (`api-key.key`, and the address's invalid keys) are part of
    // a key's cost on every request, so they are measured; a session's guard spends none. Every other budget is off
    // in the standalone server beside it (one client address sends every request).
    rateLimits: { limits: unreachableApiKeyLimits() },
  });
  useKoaServer(app, { ...accountRoutes(), controllers: [ReportsController] });
  createHttpServer(app).listen(config.port, config.host, () => process.stderr.write('{"event":"listening"}\n'));
  process.once('SIGTERM', () => void store.close().finally(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`host-server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
