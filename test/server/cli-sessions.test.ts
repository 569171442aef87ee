import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import type { AccountService } from '../../src/services/account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';

describe('admin CLI: gatehouse sessions list|end', () => {
  let dir: string;
  let env: Record<string, string>;
  let out: string[];
  let err: string[];
  let audit: CapturingLogger;
  /** alice's session tokens, newest last: one from a laptop (ip and user agent), one that sent neither. */
  let tokens: string[];
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      env,
      (line) => out.push(line),
      (line) => err.push(line),
      audit,
    );

  const sender = new RecordingEmailSender();

  /** The core on the CLI's database file, to make sessions and to check which still work. */
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

  /** Whether the token still signs in (`validateSession` is null for an ended session). */
  async function signedIn(token: string): Promise<boolean> {
    return withCore(async (accounts) => (await accounts.validateSession(token)) !== null);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-sessions-'));
    env = { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET };
    out = [];
    err = [];
    audit = new CapturingLogger();
    tokens = await withCore(async (accounts) => {
      for (const username of ['alice', 'bob']) {
        await accounts.register({ username, email: `${username}@example.com`, password: PASSWORD });
        await accounts.drain();
        await accounts.verifyEmail(sender.lastToken('sendVerification', `${username}@example.com`));
      }
      const laptop = await accounts.login('alice', PASSWORD, { ip: '203.0.113.7', userAgent: FIREFOX });
      const bare = await accounts.login('alice', PASSWORD);
      await accounts.login('bob', PASSWORD, { ip: '198.51.100.2', userAgent: 'curl/8.5.0' });
      return [laptop, bare];
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The id column of `sessions list`'s rows. */
  const listedIds = () => out.slice(1).map((line) => line.split(/\s+/)[0]);

  it('lists a user’s live sessions as a table, newest first, with where each came from and no token', async () => {
    expect(await cli('sessions', 'list', 'alice')).to.equal(0);
    expect(err).to.deep.equal([]);
    expect(out[0]).to.match(/^ID\s+CREATED\s+LAST USED\s+IP\s+USER AGENT$/);
    expect(out).to.have.length(3);
    const [newest, oldest] = out.slice(1);
    expect(newest).to.match(/^[0-9a-f-]{36}\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+-\s+-$/);
    expect(oldest).to.match(/^[0-9a-f-]{36}\s+\S+Z\s+\S+Z\s+203\.0\.113\.7\s+Mozilla\/5\.0 \(X11; .*Firefox\/132\.0$/);
    for (const token of tokens) expect(out.join('\n')).to.not.include(token);
    // Listing ends nothing, and logs nothing.
    expect(await signedIn(tokens[0])).to.equal(true);
    expect(audit.lines).to.deep.equal([]);
  });

  it('ends one session by its id: that one is signed out, the others are not, and the audit log says so', async () => {
    await cli('sessions', 'list', 'alice');
    const [bareId, laptopId] = listedIds();
    out = [];
    expect(await cli('sessions', 'end', 'alice', laptopId)).to.equal(0);
    expect(out).to.deep.equal([`ended session ${laptopId} of alice`]);
    expect(await signedIn(tokens[0])).to.equal(false);
    expect(await signedIn(tokens[1])).to.equal(true);
    out = [];
    await cli('sessions', 'list', 'alice');
    expect(listedIds()).to.deep.equal([bareId]);
    const [line] = audit.lines.map((entry) => entry.fields as Record<string, unknown>);
    expect(line).to.include({ event: 'admin_sessions_ended', outcome: 'success', sessionId: laptopId });
    expect(audit.text()).to.not.include(tokens[0]);
  });

  it('ends every session of a user with --all, and no one else’s', async () => {
    expect(await cli('sessions', 'end', 'alice', '--all')).to.equal(0);
    expect(out).to.deep.equal(['ended 2 sessions of alice']);
    for (const token of tokens) expect(await signedIn(token)).to.equal(false);
    out = [];
    await cli('sessions', 'list', 'alice');
    expect(out).to.deep.equal(['alice has no live sessions']);
    out = [];
    await cli('sessions', 'list', 'bob');
    expect(out).to.have.length(2);
    expect(audit.lines.map((entry) => (entry.fields as { event?: string }).event)).to.deep.equal([
      'admin_sessions_ended',
    ]);
    out = [];
    expect(await cli('sessions', 'end', 'alice', '--all')).to.equal(0);
    expect(out).to.deep.equal(['ended 0 sessions of alice']);
  });

  it('refuses an unknown user, or a session that is not that user’s, in one line with exit code 1', async () => {
    await cli('sessions', 'list', 'bob');
    const [bobsId] = listedIds();
    err = [];
    expect(await cli('sessions', 'list', 'nobody')).to.equal(1);
    expect(await cli('sessions', 'end', 'nobody', '--all')).to.equal(1);
    expect(await cli('sessions', 'end', 'alice', bobsId)).to.equal(1);
    expect(await cli('sessions', 'end', 'alice', 'not-a-session-id')).to.equal(1);
    expect(err).to.have.length(4);
    expect(err[0]).to.equal('gatehouse: account_error: Unknown user');
    expect(err[1]).to.equal('gatehouse: account_error: Unknown user');
    expect(err[2]).to.match(/^gatehouse: session_not_found: /);
    expect(err[3]).to.match(/^gatehouse: session_not_found: /);
    // bob's session is untouched by alice's name.
    out = [];
    await cli('sessions', 'list', 'bob');
    expect(listedIds()).to.deep.equal([bobsId]);
  });

  it('answers a malformed sessions command with exit code 2 and the usage, before opening the database', async () => {
    env.GATEHOUSE_DATABASE_URL = 'sqlite:/nonexistent-dir/for/sure/accounts.db';
    for (const argv of [
      ['sessions'],
      ['sessions', 'frobnicate'],
      ['sessions', 'list'],
      ['sessions', 'list', 'alice', 'extra'],
      ['sessions', 'end', 'alice'],
      ['sessions', 'end', 'alice', 'id', 'extra'],
    ]) {
      err = [];
      expect(await cli(...argv), argv.join(' ')).to.equal(2);
      expect(err[0], argv.join(' ')).to.match(/^gatehouse: (sessions|unknown sessions)/);
      expect(err.join('\n')).to.include('sessions end <username> --all');
    }
  });

  it('help lists the sessions commands', async () => {
    expect(await cli('help')).to.equal(0);
    const help = out.join('\n');
    expect(help).to.include('sessions list <username>');
    expect(help).to.include('sessions end <username> <session-id>');
    expect(help).to.include('sessions end <username> --all');
  });
});
