import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { isAccountError } from '../../src/errors/account-error';
import type { AccountService } from '../../src/services/account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { totpCode } from '../support/rfc6238';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';

describe('admin CLI: gatehouse second-factor disable', () => {
  let dir: string;
  let env: Record<string, string>;
  let out: string[];
  let err: string[];
  let audit: CapturingLogger;
  const sender = new RecordingEmailSender();
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      env,
      (line) => out.push(line),
      (line) => err.push(line),
      audit,
    );

  /** The core on the CLI's database file, with the CLI's secret key. */
  async function withCore<T>(work: (accounts: AccountService) => Promise<T>): Promise<T> {
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    try {
      return await work(accounts);
    } finally {
      await accounts.drain();
      await store.close();
    }
  }

  /** How a password sign-in of `username` ends: a session, a challenge, or the refusal's code. */
  const signIn = (username: string) =>
    withCore(async (accounts) => {
      try {
        return (await accounts.signIn(username, PASSWORD)).kind;
      } catch (error) {
        if (isAccountError(error)) return error.code;
        throw error;
      }
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-2fa-'));
    env = { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET };
    out = [];
    err = [];
    audit = new CapturingLogger();
    await withCore(async (accounts) => {
      for (const username of ['alice', 'bob']) {
        await accounts.register({ username, email: `${username}@example.com`, password: PASSWORD });
        await accounts.drain();
        await accounts.verifyEmail(sender.lastToken('sendVerification', `${username}@example.com`));
      }
      // alice turns two-factor sign-in on; bob does not.
      const token = await accounts.login('alice', PASSWORD);
      const { secret } = await accounts.secondFactors.startEnrolment(token);
      await accounts.secondFactors.confirmEnrolment(token, totpCode(secret, new Date()));
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('turns a user’s two-factor sign-in off: the password alone signs in again, and the audit log says who did it', async () => {
    expect(await signIn('alice')).to.equal('challenge');
    expect(await cli('second-factor', 'disable', 'alice')).to.equal(0);
    expect(err).to.deep.equal([]);
    expect(out).to.deep.equal(['turned off two-factor sign-in of alice']);
    expect(await signIn('alice')).to.equal('session');
    const events = audit.lines.map((entry) => entry.fields as Record<string, unknown>);
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ event: 'second_factor_disabled', outcome: 'by_operator' });
  });

  it('says so, and changes nothing, for a user without one (or when run twice)', async () => {
    expect(await cli('second-factor', 'disable', 'bob')).to.equal(0);
    expect(out).to.deep.equal(['bob had no two-factor sign-in; nothing changed']);
    await cli('second-factor', 'disable', 'alice');
    out = [];
    expect(await cli('second-factor', 'disable', 'alice')).to.equal(0);
    expect(out).to.deep.equal(['alice had no two-factor sign-in; nothing changed']);
    expect(audit.lines).to.have.length(1);
  });

  it('tells the user by email: the notice waits in the outbox for the worker', async () => {
    const notices = async () => {
      out = [];
      await cli('outbox', 'list', '--status', 'pending');
      return out.filter((line) => /\bsecondFactorDisabled\b/.test(line));
    };
    expect(await notices()).to.deep.equal([]);
    out = [];
    await cli('second-factor', 'disable', 'alice');
    const [notice, ...more] = await notices();
    expect(more).to.deep.equal([]);
    expect(notice).to.include('a***@e***.com');
  });

  it('refuses an unknown user in one line with exit code 1', async () => {
    expect(await cli('second-factor', 'disable', 'nobody')).to.equal(1);
    expect(out).to.deep.equal([]);
    expect(err).to.deep.equal(['gatehouse: account_error: Unknown user']);
    expect(audit.lines).to.deep.equal([]);
  });

  it('answers a malformed command with exit code 2 and the usage, before opening the database', async () => {
    env.GATEHOUSE_DATABASE_URL = 'sqlite:/nonexistent-dir/for/sure/accounts.db';
    for (const argv of [
      ['second-factor'],
      ['second-factor', 'enable', 'alice'],
      ['second-factor', 'disable'],
      ['second-factor', 'disable', 'alice', 'extra'],
    ]) {
      err = [];
      expect(await cli(...argv), argv.join(' ')).to.equal(2);
      expect(err[0], argv.join(' ')).to.match(/^gatehouse: (second-factor|unknown second-factor)/);
      expect(err.join('\n')).to.include('second-factor disable <username>');
    }
  });

  it('help lists the command', async () => {
    expect(await cli('help')).to.equal(0);
    expect(out.join('\n')).to.match(/Two-factor sign-in:\n {2}second-factor disable <username> +turn off/);
  });
});
