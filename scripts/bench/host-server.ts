/**
 * A host app for `npm run bench`: the standalone server's wiring (configuration from GATEHOUSE_* variables, the same
 * store and `createApp()` as `build/src/server/main.js`) plus one host route behind `@Authorized('perm:reports.read')`,
 * the way a host protects its own routes with Gatehouse's guards. Listens on PORT and says so on stderr.
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

// seed.ts grants this permission and requests GET /host/reports.
const HOST_PERMISSION = 'reports.read';

@Service()
@JsonController('/host')
class ReportsController {
  @Authorized(`perm:${HOST_PERMISSION}`)
  @Get('/reports')
  reports(@CurrentUser() user: StoredUser) {
    return { owner: user.username, reports: [] };
  }
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
    rateLimits: config.rateLimits,
  });
  useKoaServer(app, { ...accountRoutes(), controllers: [ReportsController] });
  createHttpServer(app).listen(config.port, config.host, () => process.stderr.write('{"event":"listening"}\n'));
  process.once('SIGTERM', () => void store.close().finally(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`host-server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
