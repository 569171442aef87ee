#!/usr/bin/env node
import 'reflect-metadata';
import { ConfigurationError } from '../errors/configuration-error';
import { isAccountError } from '../errors/account-error';
import { AccountService } from '../services/account-service';
import { silentLogger, type Logger } from '../services/logger';
import { createPinoLogger } from '../logging/pino-logger';
import { accountOptionsOf, loadConfig, parseLogLevel } from '../server/config';
import { buildSender } from '../server/build-sender';
import { openStore } from '../server/open-store';
import { NullEmailSender } from '../email/null-email-sender';
import { ADMIN_GROUPS } from './admin-groups';
import { runApiKeyCheck } from './api-key-commands';
import { COMMANDS, DATABASE_COMMANDS, usage } from './commands';
import { UsageProblem } from './command-options';
import { runOutboxCommand } from './outbox-commands';
import { runSecondFactorCommand, secondFactorUsageProblem } from './second-factor-commands';
import { runSessionsCommand, sessionsUsageProblem } from './session-commands';
import { runWorker } from './worker-command';

/**
 * `gatehouse <command>`: admin work on the same database as the server, configured by the same variables.
 * Exit codes: 0 done, 1 refused (unknown role, invalid name...), 2 usage or configuration error. `auditLogger`
 * receives the audit lines of the commands that act on users' accounts: sessions, second factor, and the
 * administration commands (`admin`, `users`, `audit`) (default: pino on stderr).
 */
export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out = console.log,
  err = console.error,
  auditLogger?: Logger,
): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    out(usage());
    return name ? 0 : 2;
  }
  if (name === 'worker' || name === 'outbox') return runEmailCommand(name, args, env, out, err);
  // Offline: it judges a string by its prefix, shape and checksum, and never opens the database.
  if (name === 'api-keys' && args[0] === 'check') return runApiKeyCheck(args.slice(1), env, out, err);
  // Own properties only: `gatehouse toString` is an unknown command, not Object.prototype's.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const databaseCommand = Object.hasOwn(DATABASE_COMMANDS, name) ? DATABASE_COMMANDS[name] : undefined;
  const sessions = name === 'sessions';
  const secondFactor = name === 'second-factor';
  const group = Object.hasOwn(ADMIN_GROUPS, name) ? ADMIN_GROUPS[name] : undefined;
  // Each acts on users' accounts, so each is an audit event (who, and when) and logs.
  const audited = sessions || secondFactor || group !== undefined;
  let request: unknown;
  if (group) {
    try {
      request = group.parse(args);
    } catch (error) {
      if (!(error instanceof UsageProblem)) throw error;
      err(`gatehouse: ${error.message}`);
      err(usage());
      return 2;
    }
  } else if (audited) {
    const problem = sessions ? sessionsUsageProblem(args) : secondFactorUsageProblem(args);
    if (problem) {
      err(`gatehouse: ${problem}`);
      err(usage());
      return 2;
    }
  } else if (databaseCommand ? args.length > 0 : !command || args.length !== command.args.length) {
    err(
      databaseCommand
        ? `gatehouse: ${name} takes no arguments`
        : command
          ? `gatehouse: ${name} takes ${command.args.map((a) => `<${a}>`).join(' ')}`
          : `gatehouse: unknown command "${name}"`,
    );
    err(usage());
    return 2;
  }
  let config;
  try {
    // Only `api-keys create` hashes a token (the new key, as the server will hash it to find it), so it needs the
    // server's secret key; for every other command no development key is generated or kept.
    const hashes = name === 'api-keys' && args[0] === 'create';
    config = loadConfig(env, { warn: (message) => err(`gatehouse: ${message}`), ephemeralSecret: !hashes });
  } catch (error) {
    if (error instanceof ConfigurationError) {
      err(`gatehouse: ${error.message}`);
      return 2;
    }
    throw error;
  }
  // Opening the store runs the migrations.
  const store = await openStore(config.database);
  const sender = secondFactor ? buildSender(config) : new NullEmailSender();
  try {
    // The CLI sends no mail itself: without a delivery, what a command queues waits in the outbox for a worker.
    // The core queues a notice only when the sender carries its kind, so `second-factor disable` is given the
    // configured sender (as the worker builds it, which has the notice), to queue the "turned off" mail for it.
    // Ending a user's sessions, turning off their second factor and administration are audit events (whose, and
    // when), so those commands log; the others stay quiet.
    const accounts = new AccountService({
      store,
      sender,
      options: accountOptionsOf(config),
      logger: audited
        ? (auditLogger ?? createPinoLogger({ level: parseLogLevel(env.GATEHOUSE_LOG_LEVEL) }))
        : silentLogger,
    });
    if (sessions) {
      await runSessionsCommand(args, { accounts, out, err });
      return 0;
    }
    if (secondFactor) {
      await runSecondFactorCommand(args, { accounts, out });
      return 0;
    }
    if (group) {
      await group.run(request, { accounts, out });
      return 0;
    }
    if (!command) {
      await databaseCommand!.run(accounts, out);
      return 0;
    }
    await command.run(accounts, args, out);
    return 0;
  } catch (error) {
    if (isAccountError(error)) {
      err(`gatehouse: ${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await (sender as { close?(): Promise<void> }).close?.();
    await store.close();
  }
}

/**
 * `worker` and `outbox ...`: email delivery. The worker needs the real secret key (it opens sealed tokens), so
 * unlike the other commands it uses the configured or kept development key, never a throwaway one.
 */
async function runEmailCommand(
  name: 'worker' | 'outbox',
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (name === 'worker' && args.length > 0) {
    err('gatehouse: worker takes no arguments');
    return 2;
  }
  let config;
  try {
    config = loadConfig(env, { warn: (message) => err(`gatehouse: ${message}`), ephemeralSecret: name === 'outbox' });
  } catch (error) {
    if (error instanceof ConfigurationError) {
      err(`gatehouse: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (name === 'worker') return runWorker(config, env);
  const store = await openStore(config.database);
  try {
    return await runOutboxCommand(args, { store, outbox: config.outbox, out, err });
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`gatehouse: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
