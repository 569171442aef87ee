import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { silentLogger } from '../../src/services/logger';
import type { IdentityView } from '../../src/services/oidc/identity-view';
import { OidcSignIn } from '../../src/services/oidc/oidc-sign-in';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';
const IDENTITY_ID = '7c2e4a1b-9d3f-4e8a-b6c5-1f0d2e3a4b5c';

// `gatehouse oidc list|unlink`: what the CLI hands the core and prints. The core's part is stood in for (its methods
// replaced on the prototype): an identity needs a provider's sign-in to exist, which the service's own tests make.
describe('admin CLI: gatehouse oidc', () => {
  let dir: string;
  let out: string[];
  let err: string[];
  const calls: { method: string; args: unknown[] }[] = [];
  const originals = { identitiesOf: OidcSignIn.prototype.identitiesOf, unlinkFor: OidcSignIn.prototype.unlinkFor };
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET },
      (line) => out.push(line),
      (line) => err.push(line),
      new CapturingLogger(),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-oidc-'));
    out = [];
    err = [];
    calls.length = 0;
    const sender = new RecordingEmailSender();
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
    await accounts.drain();
    await store.close();
  });
  afterEach(() => {
    Object.assign(OidcSignIn.prototype, originals);
    rmSync(dir, { recursive: true, force: true });
  });

  function standIn(views: IdentityView[]): void {
    OidcSignIn.prototype.identitiesOf = async (...args) => {
      calls.push({ method: 'identitiesOf', args });
      return views;
    };
    OidcSignIn.prototype.unlinkFor = async (...args) => {
      calls.push({ method: 'unlinkFor', args });
    };
  }

  it('lists a user’s identities, one line each, the address made printable and a removed provider said so', async () => {
    standIn([
      {
        id: IDENTITY_ID,
        provider: 'corp',
        providerName: 'Corp ID',
        email: 'alice@corp.example\u001b[2J',
        linkedAt: '2026-11-28T06:00:00.000Z',
        lastUsedAt: null,
        configured: true,
      },
      {
        id: '00000000-0000-4000-8000-000000000001',
        provider: 'old',
        providerName: 'old',
        email: null,
        linkedAt: '2026-11-20T06:00:00.000Z',
        lastUsedAt: '2026-11-21T06:00:00.000Z',
        configured: false,
      },
    ]);
    expect(await cli('oidc', 'list', 'alice'), err.join('\n')).to.equal(0);
    expect(out).to.have.length(3);
    expect(out[0].split(/\s+/)).to.deep.equal(['ID', 'PROVIDER', 'EMAIL', 'LINKED', 'LAST', 'USED']);
    expect(out[1].split(/\s+/)).to.deep.equal([
      IDENTITY_ID,
      'corp',
      'alice@corp.example?[2J',
      '2026-11-28T06:00:00.000Z',
      'never',
    ]);
    expect(out[2]).to.include('old (removed)').and.include('2026-11-21T06:00:00.000Z');
    expect(calls).to.deep.equal([{ method: 'identitiesOf', args: ['alice'] }]);
  });

  it('says so when a user has none, and unlinks one by its id', async () => {
    standIn([]);
    expect(await cli('oidc', 'list', 'alice')).to.equal(0);
    expect(out).to.deep.equal(['alice has no linked identities']);
    out = [];
    expect(await cli('oidc', 'unlink', 'alice', IDENTITY_ID)).to.equal(0);
    expect(out).to.deep.equal([`unlinked identity ${IDENTITY_ID} of alice`]);
    expect(calls.find((call) => call.method === 'unlinkFor')!.args).to.deep.equal(['alice', IDENTITY_ID]);
  });

  it('refuses an unknown user with the core’s error and exit code 1, before asking for identities', async () => {
    standIn([]);
    expect(await cli('oidc', 'list', 'nobody')).to.equal(1);
    expect(err.join('\n')).to.include('gatehouse: ');
    expect(await cli('oidc', 'unlink', 'nobody', IDENTITY_ID)).to.equal(1);
    expect(calls).to.deep.equal([]);
  });

  it('refuses a malformed command line with its usage (exit code 2), and help lists the commands', async () => {
    for (const [argv, problem] of [
      [['oidc'], 'oidc needs list or unlink'],
      [['oidc', 'show', 'alice'], 'unknown oidc command "show"'],
      [['oidc', 'list'], 'oidc list takes <username>'],
      [['oidc', 'list', '--all'], 'oidc list takes <username>'],
      [['oidc', 'unlink', 'alice'], 'oidc unlink takes <username> <identity-id>'],
    ] as const) {
      err = [];
      expect(await cli(...argv), argv.join(' ')).to.equal(2);
      expect(err[0], argv.join(' ')).to.include('gatehouse: ').and.include(problem);
    }
    out = [];
    expect(await cli('help')).to.equal(0);
    const help = out.join('\n');
    expect(help).to.include('oidc list <username>').and.include('oidc unlink <username> <identity-id>');
  });

  it('against the core itself: an account without identities lists none', async () => {
    // The service's own answer (no stand-in): runs once the core's OpenID part is in.
    expect(await cli('oidc', 'list', 'alice'), err.join('\n')).to.equal(0);
    expect(out).to.deep.equal(['alice has no linked identities']);
  });
});
