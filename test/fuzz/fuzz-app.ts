import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { resolveAccountService } from '../../src/di/resolve';
import { createApp } from '../../src/server/create-app';
import { createHttpServer } from '../../src/server/http-server';
import type { AccountService } from '../../src/services/account-service';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { UserStore } from '../../src/services/user-store';
import { makeTempFolder } from '../stores/temp-folder';
import { CapturingLogger } from '../support/capturing-logger';
import { generousRateLimits } from '../support/generous-rate-limits';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { CHEAP_HASHING } from '../support/fixtures';

export type FuzzStoreKind = 'memory' | 'sqlite';

export const FUZZ_PREFIX = '/auth';
export const FUZZ_SECRET = 'fuzz-secret-key-0123456789abcdef-0123456789abcdef';

/** A verified account every property may aim at, so that some runs get past "unknown user". */
export const KNOWN = {
  username: 'fuzzer',
  email: 'fuzzer@example.com',
  password: 'violet staircase 42 umbrella',
} as const;

/**
 * The standalone app (`createApp`, as `npm start` builds it) behind the standalone HTTP server (`createHttpServer`:
 * its parser-level errors are part of what a client sees), listening on a loopback port, on a memory store or a
 * real SQLite file in a temp folder.
 */
export interface FuzzApp {
  kind: FuzzStoreKind;
  http: ReturnType<typeof request>;
  accounts: AccountService;
  logger: CapturingLogger;
  /** A fresh verified user with a live session; state-changing runs use these so `KNOWN` stays intact. */
  freshSession(): Promise<{ username: string; password: string; token: string }>;
  close(): Promise<void>;
}

let userCount = 0;

export async function startFuzzApp(kind: FuzzStoreKind): Promise<FuzzApp> {
  const folder = kind === 'sqlite' ? makeTempFolder('gatehouse-fuzz-') : undefined;
  const store: UserStore = folder
    ? await SqliteUserStore.open({ filename: path.join(folder.path, 'fuzz.db') })
    : new MemoryUserStore();
  const sender = new RecordingEmailSender();
  const logger = new CapturingLogger();
  const app = createApp({
    store,
    sender,
    logger,
    prefix: FUZZ_PREFIX,
    // Cheap argon2: thousands of requests must fit in seconds; the core's own tests cover the real cost.
    options: { secretKey: FUZZ_SECRET, hashing: CHEAP_HASHING },
    // The limiter stays in the path (a 429 is a fine answer), but with budgets no run reaches: the handlers are
    // what is being fuzzed.
    rateLimits: generousRateLimits(),
  });
  const server = createHttpServer(app);
  await listen(server);
  const accounts = resolveAccountService();

  const verifiedUser = async (username: string, email: string, password: string) => {
    await accounts.register({ username, email, password });
    await accounts.drain();
    await accounts.verifyEmail(sender.lastToken('sendVerification', email));
    await accounts.drain();
  };
  await verifiedUser(KNOWN.username, KNOWN.email, KNOWN.password);

  return {
    kind,
    http: request(server),
    accounts,
    logger,
    async freshSession() {
      const username = `fz${++userCount}`;
      await verifiedUser(username, `${username}@example.com`, KNOWN.password);
      return { username, password: KNOWN.password, token: await accounts.login(username, KNOWN.password) };
    },
    async close() {
      await accounts.drain();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      folder?.remove();
    },
  };
}

function listen(server: Server): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo));
  });
}
