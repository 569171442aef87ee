import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import type { AccountService } from '../../src/services/account-service';
import { mintApiKey } from '../../src/services/api-keys/api-key-format';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { expectKeyOfFormat } from './api-key-support';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';

describe('CLI: gatehouse api-keys check (offline)', () => {
  let out: string[];
  let err: string[];
  let dir: string;
  beforeEach(() => {
    out = [];
    err = [];
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-check-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // A database URL that could not be opened, and no secret key: `check` needs neither, and creates nothing.
  const check = (text: string, env: Record<string, string> = {}) =>
    runCli(
      ['api-keys', 'check', text],
      { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'missing', 'folder', 'accounts.db')}`, ...env },
      (line) => out.push(line),
      (line) => err.push(line),
    );

  it('says a well-formed key is one (exit 0), and a flipped character fails its checksum (exit 1)', async () => {
    const key = mintApiKey('gatehouse');
    expect(await check(key), err.join('\n')).to.equal(0);
    expect(out.join('\n')).to.include('checksum: right');
    const flipped = key.slice(0, 12) + (key[12] === 'a' ? 'b' : 'a') + key.slice(13);
    out.length = 0;
    expect(await check(flipped)).to.equal(1);
    expect(out.join('\n')).to.include('checksum: WRONG');
    // It never repeats the string it was given: a key pasted into a shared terminal log is not copied further.
    expect(out.join('\n')).to.not.include(flipped.slice(10));
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('names what is wrong with a string that is not a key of the configured prefix', async () => {
    const key = mintApiKey('gatehouse');
    const cases: [string, string][] = [
      ['ghp_' + key.slice('gatehouse_'.length), 'does not start with "gatehouse_"'],
      [key.slice(0, -1), '38 characters must follow'],
      [key.slice(0, -1) + '-', 'only 0-9, A-Z and a-z'],
    ];
    for (const [text, words] of cases) {
      out.length = 0;
      expect(await check(text), text).to.equal(1);
      expect(out.join('\n')).to.include(words);
    }
  });

  it('reads GATEHOUSE_API_KEY_PREFIX, and stops on a bad one (exit 2)', async () => {
    const key = mintApiKey('acme_live');
    expect(await check(key)).to.equal(1);
    expect(await check(key, { GATEHOUSE_API_KEY_PREFIX: 'acme_live' })).to.equal(0);
    expect(await check(key, { GATEHOUSE_API_KEY_PREFIX: 'Acme' })).to.equal(2);
    expect(err.join('\n')).to.include('GATEHOUSE_API_KEY_PREFIX');
    expect(await runCli(['api-keys', 'check'], {}, (line) => out.push(line), (line) => err.push(line))).to.equal(2);
  });
});

// `gatehouse api-keys list|revoke|create` and `service-accounts create|list`, on a real SQLite database.
describe('CLI: gatehouse api-keys and service-accounts', function () {
  this.timeout(60_000);
  let dir: string;
  let out: string[];
  let err: string[];
  const env = () => ({ GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET });
  const cli = (...argv: string[]) =>
    runCli(argv, env(), (line) => out.push(line), (line) => err.push(line), new CapturingLogger());

  /** The core on the same database and secret, to look at what the CLI did. */
  async function withCore<T>(use: (accounts: AccountService) => Promise<T>): Promise<T> {
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const sender = new RecordingEmailSender();
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    try {
      return await use(accounts);
    } finally {
      await store.close();
    }
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-api-keys-'));
    out = [];
    err = [];
    await withCore(async (accounts) => {
      await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
      await accounts.access.createRole('reporter');
      await accounts.access.createPermission('posts.read');
      await accounts.access.grantPermission('reporter', 'posts.read');
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a service account with a role, a key for it shown once, lists and revokes it', async () => {
    expect(await cli('service-accounts', 'create', 'robot', '--role', 'reporter'), err.join('\n')).to.equal(0);
    expect(out.join('\n')).to.include('created service account robot').and.include('reporter');
    const robot = /\(([0-9a-f-]{36})\)/.exec(out.join('\n'))![1];
    const robotKeys = () => withCore((accounts) => accounts.apiKeys.admin.list({ kind: 'operator' }, robot));
    out.length = 0;
    expect(await cli('service-accounts', 'list'), err.join('\n')).to.equal(0);
    expect(out.join('\n')).to.include('robot').and.include('reporter');

    out.length = 0;
    expect(
      await cli('api-keys', 'create', 'robot', '--name', 'deploy', '--scope', 'posts.read', '--days', '7'),
      err.join('\n'),
    ).to.equal(0);
    const key = out.at(-1)!;
    expectKeyOfFormat(key);
    // Made under the server's secret key: the server finds it by its hash (here, a revocation by possession).
    const listed = await robotKeys();
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ name: 'deploy', lastFour: key.slice(-4) });

    out.length = 0;
    expect(await cli('api-keys', 'list', 'robot'), err.join('\n')).to.equal(0);
    const list = out.join('\n');
    expect(list).to.include(listed[0].id).and.include('deploy').and.include('posts.read');
    expect(list, 'a listing never shows the key').to.not.include(key.slice(0, -4));

    out.length = 0;
    expect(await cli('api-keys', 'revoke', 'robot', listed[0].id), err.join('\n')).to.equal(0);
    expect(await robotKeys()).to.deep.equal([]);

    // A key the server's own hash finds: created again, then revoked by possession through the core.
    out.length = 0;
    expect(await cli('api-keys', 'create', 'robot', '--name', 'again', '--scope', 'posts.read')).to.equal(0);
    const again = out.at(-1)!;
    await withCore((accounts) => accounts.apiKeys.revokeByPossession(again));
    expect(await robotKeys()).to.deep.equal([]);
  });

  it('revokes every key of a user with --all, and refuses a person’s key to the operator too', async () => {
    expect(await cli('service-accounts', 'create', 'robot', '--role', 'reporter'), err.join('\n')).to.equal(0);
    for (const name of ['one', 'two']) {
      expect(await cli('api-keys', 'create', 'robot', '--name', name, '--scope', 'posts.read'), err.join('\n')).to.equal(
        0,
      );
    }
    out.length = 0;
    expect(await cli('api-keys', 'revoke', 'robot', '--all'), err.join('\n')).to.equal(0);
    expect(out).to.deep.equal(['revoked 2 API keys of robot']);
    err.length = 0;
    expect(await cli('api-keys', 'create', 'alice', '--name', 'mine', '--scope', 'posts.read')).to.equal(1);
    expect(err.join('\n')).to.include('not_a_service_account');
  });

  it('refuses bad command lines before opening the database (exit 2), and names unknown users (exit 1)', async () => {
    const bad = [
      ['api-keys'],
      ['api-keys', 'list'],
      ['api-keys', 'revoke', 'robot'],
      ['api-keys', 'revoke', 'robot', 'a', 'b'],
      ['api-keys', 'create', 'robot', '--scope', 'posts.read'],
      ['api-keys', 'create', 'robot', '--name', 'ci'],
      ['api-keys', 'create', 'robot', '--name', 'ci', '--scope', 'posts.read', '--days', 'ten'],
      ['api-keys', 'create', 'robot', '--name', 'ci', '--scope', 'posts.read', '--colour', 'red'],
      ['service-accounts'],
      ['service-accounts', 'create'],
      ['service-accounts', 'list', 'extra'],
    ];
    for (const argv of bad) expect(await cli(...argv), argv.join(' ')).to.equal(2);
    err.length = 0;
    expect(await cli('api-keys', 'list', 'nobody')).to.equal(1);
    expect(err.join('\n')).to.include('Unknown user');
  });
});
