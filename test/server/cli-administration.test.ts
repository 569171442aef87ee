import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { isAccountError } from '../../src/errors/account-error';
import { ALL_ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import type { AccountService } from '../../src/services/account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';

describe('admin CLI: gatehouse admin grant, users, audit list', () => {
  let dir: string;
  let env: Record<string, string>;
  let out: string[];
  let err: string[];
  let audit: CapturingLogger;
  /** bob's two session tokens (a phone and a laptop). */
  let bobTokens: string[];
  const sender = new RecordingEmailSender();
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      env,
      (line) => out.push(line),
      (line) => err.push(line),
      audit,
    );
  /** Runs a command that must succeed, and returns only its output. */
  const run = async (...argv: string[]) => {
    out = [];
    err = [];
    const code = await cli(...argv);
    expect(err, argv.join(' ')).to.deep.equal([]);
    expect(code, argv.join(' ')).to.equal(0);
    return out;
  };

  /** The core on the CLI's database file, as a server would open it. */
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

  /** How a password sign-in ends: `session`, or the refusal's code. */
  const signIn = (username: string, password = PASSWORD) =>
    withCore(async (accounts) => {
      try {
        return (await accounts.signIn(username, password)).kind;
      } catch (error) {
        if (isAccountError(error)) return error.code;
        throw error;
      }
    });
  const signedIn = (token: string) => withCore(async (accounts) => (await accounts.validateSession(token)) !== null);
  const idOf = (username: string) => withCore((accounts) => accounts.admin.userIdOf(username));

  /** The `key: value` lines of `users show`. */
  async function shown(username: string): Promise<Record<string, string>> {
    const lines = await run('users', 'show', username);
    return Object.fromEntries(lines.map((line) => /^([a-z -]+):\s+(.*)$/.exec(line)!.slice(1, 3)));
  }
  /** The first column of a listing's rows (header and cursor line left out). */
  const firstColumn = (lines: string[]) =>
    lines
      .filter((line) => !line.startsWith('next cursor: '))
      .slice(1)
      .map((line) => line.split(/\s+/)[0]);
  /** The rows of `audit list`, each split into its columns (details last, whole). */
  const events = (lines: string[]) =>
    lines
      .filter((line) => !line.startsWith('next cursor: '))
      .slice(1)
      .map((line) => {
        const [at, type, outcome, actor, subject, ip, request, ...details] = line.split(/\s+/);
        return { at, type, outcome, actor, subject, ip, request, details: details.join(' ') };
      });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-admin-'));
    env = { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET };
    out = [];
    err = [];
    audit = new CapturingLogger();
    bobTokens = await withCore(async (accounts) => {
      for (const username of ['alice', 'bob', 'carol']) {
        await accounts.register({ username, email: `${username}@example.com`, password: PASSWORD });
        await accounts.drain();
        await accounts.verifyEmail(sender.lastToken('sendVerification', `${username}@example.com`));
      }
      // dave never confirms his address.
      await accounts.register({ username: 'dave', email: 'dave@example.org', password: PASSWORD });
      return [await accounts.login('bob', PASSWORD), await accounts.login('bob', PASSWORD, { ip: '203.0.113.9' })];
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('admin grant', () => {
    it('makes the first administrator: the role with every admin permission, usable at once by the core', async () => {
      expect(await run('admin', 'grant', 'alice')).to.deep.equal([
        'alice is now an administrator (role gatehouse-admin)',
      ]);
      expect(await run('list-user-roles', 'alice')).to.deep.equal(['gatehouse-admin']);
      const alice = await shown('alice');
      expect(alice.roles).to.equal('gatehouse-admin');
      expect(alice.permissions.split(', ')).to.deep.equal([...ALL_ADMIN_PERMISSIONS].sort());
      // As a signed-in administrator, alice may now do what the admin routes do; bob may not.
      const [aliceId, bobId] = [await idOf('alice'), await idOf('bob')];
      await withCore(async (accounts) => {
        const page = await accounts.admin.listUsers({ kind: 'admin', user: { id: aliceId } }, {});
        expect(page.items.map((user) => user.username)).to.include.members(['alice', 'bob', 'carol', 'dave']);
        const refused = await accounts.admin.listUsers({ kind: 'admin', user: { id: bobId } }, {}).catch((e) => e);
        expect(refused).to.have.property('code', 'permission_denied');
      });
    });

    it('says so, and changes nothing, when the user already is one; the grant is audited as the operator’s', async () => {
      await run('admin', 'grant', 'alice');
      expect(await run('admin', 'grant', 'alice')).to.deep.equal([
        'alice already is an administrator (role gatehouse-admin); nothing changed',
      ]);
      const aliceId = await idOf('alice');
      expect(await run('list-user-roles', 'alice')).to.deep.equal(['gatehouse-admin']);
      const granted = events(await run('audit', 'list', '--type', 'admin.role_granted'));
      const first = granted[granted.length - 1];
      expect(first).to.include({ outcome: 'success', actor: 'operator', subject: aliceId });
      expect(first.details).to.equal('role=gatehouse-admin');
      const created = events(await run('audit', 'list', '--type', 'admin.role_created,admin.permission_created'));
      expect(created.map((row) => row.details)).to.have.members([
        'role=gatehouse-admin',
        ...ALL_ADMIN_PERMISSIONS.map((permission) => `permission=${permission}`),
      ]);
      for (const row of created) expect(row.actor).to.equal('operator');
    });

    it('refuses an unknown user in one line with exit code 1', async () => {
      expect(await cli('admin', 'grant', 'nobody')).to.equal(1);
      expect(err).to.deep.equal(['gatehouse: account_error: Unknown user']);
    });
  });

  describe('users list and show', () => {
    it('lists accounts newest first as a table with full addresses, filtered like the admin route', async () => {
      const all = await run('users', 'list');
      expect(all[0]).to.match(/^ID\s+USERNAME\s+EMAIL\s+VERIFIED\s+DISABLED\s+CREATED$/);
      const rows = all.slice(1).map((line) => line.split(/\s+/));
      expect(rows.map((row) => row[1])).to.deep.equal(['dave', 'carol', 'bob', 'alice']);
      expect(rows[0]).to.deep.equal([await idOf('dave'), 'dave', 'dave@example.org', 'no', 'no', rows[0][5]]);
      expect(rows[0][5]).to.match(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      expect(all.some((line) => line.startsWith('next cursor'))).to.equal(false);

      const usernames = async (...filters: string[]) =>
        (await run('users', 'list', ...filters))
          .filter((line) => !line.startsWith('next cursor: '))
          .slice(1)
          .map((line) => line.split(/\s+/)[1]);
      expect(await usernames('--prefix', 'B')).to.deep.equal(['bob']);
      expect(await usernames('--prefix', 'dave@')).to.deep.equal(['dave']);
      expect(await usernames('--verified', 'false')).to.deep.equal(['dave']);
      expect(await usernames('--verified=true', '--prefix=c')).to.deep.equal(['carol']);
      expect(await usernames('--created-before', '2000-01-01')).to.deep.equal([]);
      expect(await usernames('--created-from', '2000-01-01T00:00:00Z', '--limit', '1')).to.deep.equal(['dave']);
      await run('admin', 'grant', 'carol');
      expect(await usernames('--role', 'gatehouse-admin')).to.deep.equal(['carol']);
      expect(await run('users', 'list', '--prefix', 'zed')).to.deep.equal(['no users']);
    });

    it('pages with --limit and the printed --cursor until the last page, which prints no cursor', async () => {
      const seen: string[] = [];
      let cursor: string[] = [];
      for (let page = 0; page < 5; page++) {
        const lines = await run('users', 'list', '--limit', '3', ...cursor);
        seen.push(...firstColumn(lines));
        const next = lines[lines.length - 1].match(/^next cursor: (\S+)$/);
        if (!next) break;
        cursor = ['--cursor', next[1]];
      }
      const ids = await Promise.all(['dave', 'carol', 'bob', 'alice'].map(idOf));
      expect(seen).to.deep.equal(ids);
      expect(await cli('users', 'list', '--cursor', 'not-a-cursor')).to.equal(1);
      expect(err[err.length - 1]).to.match(/^gatehouse: invalid_cursor: /);
    });

    it('shows one account: verification, two-factor, roles, live sessions and last sign-in', async () => {
      const bob = await shown('bob');
      expect(bob).to.include({
        id: await idOf('bob'),
        username: 'bob',
        email: 'bob@example.com',
        verified: 'yes',
        disabled: 'no',
        'two-factor': 'off',
        roles: '-',
        permissions: '-',
        'live sessions': '2',
      });
      expect(bob['last sign-in']).to.match(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      expect(await shown('dave')).to.include({ verified: 'no', 'last sign-in': 'never', 'live sessions': '0' });
      expect(await cli('users', 'show', 'nobody')).to.equal(1);
      expect(err).to.deep.equal(['gatehouse: account_error: Unknown user']);
    });
  });

  describe('users disable and enable', () => {
    it('disables a signed-in account: both sessions die, login is refused, and enabling lets it sign in again', async () => {
      for (const token of bobTokens) expect(await signedIn(token)).to.equal(true);
      expect(await run('users', 'disable', 'bob')).to.deep.equal([
        'disabled bob: signed out everywhere; sign-in is refused and emailed links no longer work',
      ]);
      for (const token of bobTokens) expect(await signedIn(token)).to.equal(false);
      // Told only to someone who knows the password; a wrong one is refused as always.
      expect(await signIn('bob')).to.equal('account_disabled');
      expect(await signIn('bob', 'not the password at all')).to.equal('invalid_credentials');
      const disabled = await shown('bob');
      expect(disabled.disabled).to.match(/^yes, since \d{4}-\d\d-\d\dT[\d:.]+Z$/);
      expect(disabled['live sessions']).to.equal('0');
      expect(firstColumn(await run('users', 'list', '--disabled', 'true'))).to.deep.equal([await idOf('bob')]);
      // Disabling again is no error, and keeps the first instant.
      await run('users', 'disable', 'bob');
      expect((await shown('bob')).disabled).to.equal(disabled.disabled);

      expect(await run('users', 'enable', 'bob')).to.deep.equal(['enabled bob: sign-in works again']);
      expect((await shown('bob')).disabled).to.equal('no');
      expect(await signIn('bob')).to.equal('session');
      // The old sessions stay ended.
      for (const token of bobTokens) expect(await signedIn(token)).to.equal(false);
      expect(audit.lines.map((line) => (line.fields as { event?: string }).event)).to.include.members([
        'admin.user_disabled',
        'admin.user_enabled',
      ]);
    });

    it('will not disable the last administrator', async () => {
      await run('admin', 'grant', 'alice');
      expect(await cli('users', 'disable', 'alice')).to.equal(1);
      expect(err[0]).to.match(/^gatehouse: last_administrator: /);
      expect(await signIn('alice')).to.equal('session');
      // With a second administrator, the first may be disabled.
      await run('admin', 'grant', 'carol');
      await run('users', 'disable', 'alice');
      expect(await signIn('alice')).to.equal('account_disabled');
    });
  });

  describe('audit list', () => {
    it('reads each step with its actor and subject, and never a token, password, hash or address', async () => {
      await run('admin', 'grant', 'alice');
      await run('users', 'disable', 'bob');
      await signIn('bob');
      await run('users', 'enable', 'bob');
      const bobId = await idOf('bob');
      const lines = await run('audit', 'list', '--user', 'bob');
      expect(lines[0]).to.match(/^AT\s+TYPE\s+OUTCOME\s+ACTOR\s+SUBJECT\s+IP\s+REQUEST\s+DETAILS$/);
      const rows = events(lines);
      // Newest first: enabled, the refused login, disabled, then the two logins and bob's registration.
      expect(rows.slice(0, 3).map((row) => [row.type, row.outcome, row.actor, row.subject])).to.deep.equal([
        ['admin.user_enabled', 'success', 'operator', bobId],
        ['login', 'disabled', 'anonymous', bobId],
        ['admin.user_disabled', 'success', 'operator', bobId],
      ]);
      expect(rows.map((row) => row.type)).to.include.members(['register', 'verify_email', 'login']);
      for (const row of rows) expect(row.at).to.match(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      const everything = (await run('audit', 'list', '--limit', '200')).join('\n');
      for (const secret of [PASSWORD, ...bobTokens, '@example.com', '@example.org', '$argon2']) {
        expect(everything).to.not.include(secret);
      }
    });

    it('filters by type (repeatable or a comma list) and time, and pages with the printed cursor', async () => {
      await run('users', 'disable', 'bob');
      await run('users', 'enable', 'bob');
      const types = async (...filters: string[]) =>
        events(await run('audit', 'list', ...filters)).map((row) => row.type);
      expect(await types('--type', 'admin.user_enabled,admin.user_disabled')).to.deep.equal([
        'admin.user_enabled',
        'admin.user_disabled',
      ]);
      expect(await types('--type', 'admin.user_disabled', '--type', 'admin.user_enabled')).to.have.length(2);
      expect(await types('--type', 'register', '--since', '2000-01-01', '--until', '2000-01-02')).to.deep.equal([]);
      expect(await run('audit', 'list', '--until', '2000-01-01')).to.deep.equal(['no events']);
      expect(await types('--type', 'register')).to.have.length(4);

      const all = firstColumn(await run('audit', 'list', '--limit', '200'));
      const paged: string[] = [];
      let cursor: string[] = [];
      for (let page = 0; page < 50; page++) {
        const lines = await run('audit', 'list', '--limit', '2', ...cursor);
        paged.push(...firstColumn(lines));
        const next = lines[lines.length - 1].match(/^next cursor: (\S+)$/);
        if (!next) break;
        cursor = ['--cursor', next[1]];
      }
      // Reading the trail is an event too: the whole read before the paging is the newest one the pages see.
      expect(paged.slice(1)).to.deep.equal(all);
    });

    it('finds a deleted user’s events by id, since the name resolves no more', async () => {
      const carolId = await idOf('carol');
      await withCore((accounts) => accounts.admin.deleteUser({ kind: 'operator' }, carolId));
      expect(await cli('audit', 'list', '--user', 'carol')).to.equal(1);
      expect(err).to.deep.equal(['gatehouse: account_error: Unknown user']);
      const rows = events(await run('audit', 'list', '--user', carolId.toUpperCase()));
      expect(rows[0]).to.include({ type: 'admin.user_deleted', actor: 'operator', subject: carolId });
      expect(rows.map((row) => row.type)).to.include('register');
    });
  });

  it('gatehouse cleanup removes audit events older than GATEHOUSE_AUDIT_RETENTION, and only those', async () => {
    const DAY = 86_400_000;
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    for (const [id, age] of [
      ['00000000-0000-4000-8000-000000000040', 40 * DAY],
      ['00000000-0000-4000-8000-000000000020', 20 * DAY],
    ] as const) {
      await store.transaction((tx) =>
        tx.audit.add({
          id,
          at: new Date(Date.now() - age),
          type: 'logout',
          outcome: 'success',
          actorType: 'anonymous',
          actorId: null,
          subjectId: null,
          ip: null,
          requestId: null,
          details: null,
        }),
      );
    }
    await store.close();
    const old = async () => events(await run('audit', 'list', '--type', 'logout')).map((row) => row.at);
    expect(await old()).to.have.length(2);
    // The default keeps a year; 30 days removes the 40-day-old event and keeps the 20-day-old one.
    await run('cleanup');
    expect(await old()).to.have.length(2);
    env.GATEHOUSE_AUDIT_RETENTION = '30d';
    await run('cleanup');
    const kept = await old();
    expect(kept).to.have.length(1);
    expect(Date.now() - Date.parse(kept[0])).to.be.within(20 * DAY, 21 * DAY);
    // Registrations and logins of today stay.
    expect(events(await run('audit', 'list', '--type', 'register'))).to.have.length(4);
  });

  it('answers a malformed command with exit code 2 and the usage, before opening the database', async () => {
    env.GATEHOUSE_DATABASE_URL = 'sqlite:/nonexistent-dir/for/sure/accounts.db';
    for (const [argv, problem] of [
      [['admin'], 'admin needs grant'],
      [['admin', 'revoke', 'alice'], 'unknown admin command "revoke"'],
      [['admin', 'grant'], 'admin grant takes <username>'],
      [['admin', 'grant', 'alice', 'bob'], 'admin grant takes <username>'],
      [['users'], 'users needs list, show, disable or enable'],
      [['users', 'delete', 'bob'], 'unknown users command "delete"'],
      [['users', 'show'], 'users show takes <username>'],
      [['users', 'disable', 'bob', 'carol'], 'users disable takes <username>'],
      [['users', 'list', 'bob'], 'users list: unexpected "bob"'],
      [['users', 'list', '--verified', 'yes'], '--verified must be true or false, got "yes"'],
      [['users', 'list', '--disabled'], 'users list: --disabled needs a value'],
      [['users', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 200, got "0"'],
      [['users', 'list', '--limit', '201'], '--limit must be a whole number from 1 to 200, got "201"'],
      [['users', 'list', '--created-from', 'yesterday'], '--created-from must be an ISO date or instant'],
      [['users', 'list', '--created-before', '2026-11-01T09:30'], '--created-before must be an ISO date or instant'],
      [['users', 'list', '--role', 'a', '--role', 'b'], 'users list: --role is given twice'],
      [['users', 'list', '--constructor', 'x'], 'users list: unknown option --constructor'],
      [['audit'], 'audit needs list'],
      [['passkeys'], 'passkeys needs list or remove'],
      [['passkeys', 'show', 'alice'], 'unknown passkeys command "show"'],
      [['passkeys', 'list'], 'passkeys list takes <username>'],
      [['passkeys', 'list', '--all'], 'passkeys list takes <username>'],
      [['passkeys', 'remove', 'alice'], 'passkeys remove takes <username> <passkey-id>'],
      [['audit', 'list', '--type', 'login,nope'], 'audit list: unknown event type "nope"'],
      [['audit', 'list', '--type', 'login,'], 'audit list: --type has an empty value in "login,"'],
      [['audit', 'list', '--since', '2026-13-01'], '--since must be an ISO date or instant'],
      [['audit', 'list', '--limit', 'ten'], '--limit must be a whole number from 1 to 200, got "ten"'],
    ] as const) {
      err = [];
      expect(await cli(...argv), argv.join(' ')).to.equal(2);
      expect(err[0], argv.join(' ')).to.include(`gatehouse: `).and.include(problem);
      expect(err.join('\n'), argv.join(' ')).to.include('audit list [options]');
    }
  });

  it('help lists the administration commands and their options', async () => {
    const help = (await run('help')).join('\n');
    expect(help).to.match(/Administration \(audited as the operator\):\n {2}admin grant <username> +make the user/);
    for (const synopsis of [
      'users list [options]',
      'users show <username>',
      'users disable <username>',
      'users enable <username>',
      'audit list [options]',
      'passkeys list <username>',
      'passkeys remove <username> <passkey-id>',
      '--verified true|false',
      '--type <type>[,<type>...]',
    ])
      expect(help).to.include(synopsis);
  });
});
