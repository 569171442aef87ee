import * as argon2 from 'argon2';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { AccountError } from '../../src/errors/account-error';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import { type DatabaseConfig, loadConfig } from '../../src/server/config';
import { openStore } from '../../src/server/open-store';
import { DEFAULT_ACCOUNT_OPTIONS } from '../../src/services/account-options';
import { AccountService } from '../../src/services/account-service';
import type { EmailSender, OutgoingEmail } from '../../src/services/email-sender';
import { usernameKeyOf } from '../../src/services/identity';
import { TOTP_PERIOD_SECONDS } from '../../src/services/second-factor/totp';
import type { UserStore } from '../../src/services/user-store';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';

/** An account with the authenticator app on: its name, its app, and the last time step it used (the server's rule). */
export interface EnrolledAccount {
  username: string;
  app: TOTP;
  lastStep: number;
}

/** The time step of a moment (RFC 6238: 30-second steps since the epoch). */
export const stepAt = (ms: number) => Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS);

/** argon2id at its cheapest, for the seeding's own hashing only: what the accounts keep is a hash at full cost. */
const CHEAP_HASHING = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
const AT_ONCE = 16;

/** Keeps the verification links, the only mail the seeding reads; the rest goes nowhere. */
class LinkCatcher implements EmailSender {
  readonly links = new Map<string, string>();
  // The first release's kinds only, as before: the seeding queues no optional notice.
  readonly kinds = ['verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted'] as const;
  async send(message: OutgoingEmail): Promise<void> {
    if (message.kind === 'verification') this.links.set(message.username, message.token);
  }
}

/**
 * `count` accounts with two-factor sign-in on, made before the server starts, in this process, through Gatehouse's own
 * core on the bench's database: registered, verified from their link, signed in, enrolled with a code from their
 * app. Each then gets, as its password hash, one argon2id hash of `password` made with the server's parameters, so
 * that the server checks every sign-in at full cost, and the seeding skips 2 full-cost hashes an account (through
 * the API, 1,000 accounts would take half a minute of both cores). The accounts share that hash (and its salt): the
 * server's work is the same for each.
 *
 * Enrolment spends the time step before the current one, so that each account can sign in with the code of the
 * current step and then of the next, as the server's drift window allows. The outbox is drained before returning:
 * the server's worker has no mail of the seeding left to send while it is measured.
 */
export async function seedEnrolledAccounts(
  env: Record<string, string>,
  cwd: string,
  count: number,
  password: string,
): Promise<EnrolledAccount[]> {
  const config = loadConfig(env, { cwd });
  const store = await openWithoutWaitingForDisk(config.database);
  const sender = new LinkCatcher();
  const delivery = new OutboxWorker({ store, sender, secretKey: config.secretKey });
  const accounts = new AccountService({
    store,
    sender,
    delivery,
    options: { secretKey: config.secretKey, hashing: CHEAP_HASHING },
  });
  try {
    const fullCostHash = await argon2.hash(password, { type: argon2.argon2id, ...DEFAULT_ACCOUNT_OPTIONS.hashing });
    const prefix = `tfa${Date.now().toString(36)}`;
    const names = Array.from({ length: count }, (_, i) => `${prefix}x${i.toString(36)}`);
    const enrolled: EnrolledAccount[] = [];
    for (let start = 0; start < names.length; start += AT_ONCE) {
      const batch = names.slice(start, start + AT_ONCE);
      await Promise.all(
        batch.map((username) => accounts.register({ username, email: `${username}@example.com`, password })),
      );
      await delivery.drain();
      enrolled.push(
        ...(await Promise.all(
          batch.map((username) => enrol(accounts, store, username, password, sender.links, fullCostHash)),
        )),
      );
    }
    await delivery.drain();
    return enrolled;
  } finally {
    await delivery.stop();
    await store.close();
  }
}

async function enrol(
  accounts: AccountService,
  store: UserStore,
  username: string,
  password: string,
  links: Map<string, string>,
  fullCostHash: string,
): Promise<EnrolledAccount> {
  const link = links.get(username);
  if (!link) throw new Error(`seeding: no verification link for ${username}`);
  await accounts.verifyEmail(link);
  const session = await accounts.login(username, password);
  const { secret } = await accounts.secondFactors.startEnrolment(session);
  const app = new TOTP({
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
  const lastStep = await confirmWithEarlierCode(accounts, session, app);
  const found = await store.passwords.findForSignIn(usernameKeyOf(username));
  const current = found?.passwordHash;
  if (
    !found ||
    !current ||
    !(await store.transaction((tx) => tx.passwords.rehash(found.user.id, current, fullCostHash, new Date())))
  ) {
    throw new Error(`seeding: could not give ${username} its password hash`);
  }
  return { username, app, lastStep };
}

/**
 * Confirms the enrolment with the code of the step before the current one, and answers that step. The server may
 * check it in the next step already (the queries before the check take a while on a busy machine), where that code
 * is too old: then again, with the code that is now one step old.
 */
async function confirmWithEarlierCode(accounts: AccountService, session: string, app: TOTP): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const earlier = Date.now() - TOTP_PERIOD_SECONDS * 1000;
    try {
      await accounts.secondFactors.confirmEnrolment(session, app.generate({ timestamp: earlier }));
      return stepAt(earlier);
    } catch (error) {
      if (attempt === 3 || !(error instanceof AccountError) || error.code !== 'invalid_second_factor_code') throw error;
    }
  }
}

/**
 * The store, with commits that do not wait for the disk: nothing of the seeding needs to survive a crash, and waiting
 * took most of its time. The server opens the database afterwards with its own settings.
 */
async function openWithoutWaitingForDisk(database: DatabaseConfig): Promise<UserStore> {
  if (database.kind === 'postgres') {
    const url = new URL(database.connectionString);
    url.searchParams.set('options', '-c synchronous_commit=off');
    return openStore({ ...database, connectionString: url.toString() });
  }
  const store = await openStore(database);
  if (store instanceof SqlUserStore) await sql`PRAGMA synchronous = OFF`.execute(store.db);
  return store;
}
