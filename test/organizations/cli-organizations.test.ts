import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';

// `gatehouse organizations list|show|user|set-owner`, on a real SQLite database the core filled.
describe('admin CLI: gatehouse organizations', function () {
  this.timeout(60_000);
  let dir: string;
  let out: string[];
  let err: string[];
  let orgId: string;
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET },
      (line) => out.push(line),
      (line) => err.push(line),
      new CapturingLogger(),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-org-'));
    out = [];
    err = [];
    const sender = new RecordingEmailSender();
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    for (const username of ['alice', 'bob']) {
      await accounts.register({ username, email: `${username}@example.com`, password: PASSWORD });
      await accounts.drain();
      await accounts.verifyEmail(sender.lastToken('sendVerification', `${username}@example.com`));
    }
    const token = await accounts.login('alice', PASSWORD);
    orgId = (await accounts.organizations.create(token, { name: 'Acme' })).id;
    await accounts.organizations.invite(token, orgId, { email: 'carol@example.com', role: 'member' });
    await accounts.drain();
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists organizations, shows one with its members and invitations, and a user’s', async () => {
    expect(await cli('organizations', 'list'), err.join('\n')).to.equal(0);
    expect(out.join('\n')).to.include(orgId).and.include('Acme');
    out.length = 0;
    expect(await cli('organizations', 'show', orgId), err.join('\n')).to.equal(0);
    const shown = out.join('\n');
    expect(shown).to.include('alice@example.com').and.include('owner').and.include('carol@example.com');
    out.length = 0;
    expect(await cli('organizations', 'user', 'alice')).to.equal(0);
    expect(out.join('\n')).to.include(orgId).and.include('owner');
    out.length = 0;
    expect(await cli('organizations', 'user', 'bob')).to.equal(0);
    expect(out).to.deep.equal(['bob belongs to no organization']);
  });

  it('makes a user an owner, adding the membership', async () => {
    expect(await cli('organizations', 'set-owner', orgId, 'bob'), err.join('\n')).to.equal(0);
    out.length = 0;
    expect(await cli('organizations', 'user', 'bob')).to.equal(0);
    expect(out.join('\n')).to.include(orgId).and.include('owner');
  });

  it('refuses bad command lines and names unknown organizations and users', async () => {
    expect(await cli('organizations')).to.not.equal(0);
    expect(await cli('organizations', 'show')).to.not.equal(0);
    expect(await cli('organizations', 'set-owner', orgId)).to.not.equal(0);
    err.length = 0;
    expect(await cli('organizations', 'show', '00000000-0000-4000-8000-000000000000')).to.not.equal(0);
    expect(err.join('\n')).to.include('organization_not_found');
    err.length = 0;
    expect(await cli('organizations', 'user', 'nobody')).to.not.equal(0);
    expect(err.join('\n')).to.include('Unknown user');
  });
});
