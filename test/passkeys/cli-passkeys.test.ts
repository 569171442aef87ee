import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { OPERATOR } from '../../src/services/admin-views';
import { silentLogger } from '../../src/services/logger';
import { Passkeys } from '../../src/services/passkeys/passkeys';
import type { PasskeyView } from '../../src/services/passkeys/passkey-view';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';
const PASSWORD = 'violet staircase 42 umbrella';
const PASSKEY_ID = '3f1d9c2a-8b7e-4d6f-a1c0-5e2b9d8f7a61';

// `gatehouse passkeys list|remove`: what the CLI hands the core and prints. The core is stood in for (its methods
// replaced on the prototype), as its passkeys need a browser's authenticator to exist; its own tests cover the rest.
describe('admin CLI: gatehouse passkeys', () => {
  let dir: string;
  let out: string[];
  let err: string[];
  const calls: { method: string; args: unknown[] }[] = [];
  const originals = { listOf: Passkeys.prototype.listOf, removeOf: Passkeys.prototype.removeOf };
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET },
      (line) => out.push(line),
      (line) => err.push(line),
      new CapturingLogger(),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-passkeys-'));
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
    Object.assign(Passkeys.prototype, originals);
    rmSync(dir, { recursive: true, force: true });
  });

  function standIn(views: PasskeyView[]): void {
    Passkeys.prototype.listOf = async (...args) => {
      calls.push({ method: 'listOf', args });
      return views;
    };
    Passkeys.prototype.removeOf = async (...args) => {
      calls.push({ method: 'removeOf', args });
    };
  }

  it('lists a user’s passkeys as the operator, one line each, the name made printable', async () => {
    standIn([
      {
        id: PASSKEY_ID,
        name: 'Laptop\u001b[2J',
        createdAt: new Date('2026-11-28T06:00:00.000Z'),
        lastUsedAt: null,
        deviceType: 'device_bound',
      },
    ]);
    expect(await cli('passkeys', 'list', 'alice'), err.join('\n')).to.equal(0);
    expect(out).to.have.length(2);
    expect(out[0].split(/\s+/)).to.deep.equal(['ID', 'NAME', 'ADDED', 'LAST', 'USED', 'TYPE']);
    expect(out[1].split(/\s+/)).to.deep.equal([
      PASSKEY_ID,
      'Laptop?[2J',
      '2026-11-28T06:00:00.000Z',
      'never',
      'device-bound',
    ]);
    expect(calls).to.have.length(1);
    expect(calls[0].args[0]).to.deep.equal(OPERATOR);
    expect(calls[0].args[1]).to.match(/^[0-9a-f-]{36}$/);
  });

  it('says so when a user has none, and removes one by its id', async () => {
    standIn([]);
    expect(await cli('passkeys', 'list', 'alice')).to.equal(0);
    expect(out).to.deep.equal(['alice has no passkeys']);
    out = [];
    expect(await cli('passkeys', 'remove', 'alice', PASSKEY_ID)).to.equal(0);
    expect(out).to.deep.equal([`removed passkey ${PASSKEY_ID} of alice`]);
    const removal = calls.find((call) => call.method === 'removeOf')!;
    expect(removal.args[0]).to.deep.equal(OPERATOR);
    expect(removal.args[2]).to.equal(PASSKEY_ID);
  });

  it('refuses an unknown user with the core’s error and exit code 1, before asking for passkeys', async () => {
    standIn([]);
    expect(await cli('passkeys', 'list', 'nobody')).to.equal(1);
    expect(err.join('\n')).to.include('gatehouse: ');
    expect(calls).to.deep.equal([]);
  });
});
