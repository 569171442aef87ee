import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ENTRY = join(__dirname, '../../src/index.js');
const TESTING = join(__dirname, '../../src/testing.js');

// In a fresh process: what the package entry loads before anyone uses a passkey, and after.
const PROBE = `
  const gatehouse = require(process.argv[1]);
  const { MemoryUserStore } = require(process.argv[2]);
  const loaded = (name) => Object.keys(require.cache).some((file) => file.includes('/node_modules/' + name + '/'));
  const atStart = { webauthn: loaded('@simplewebauthn'), suffixes: loaded('tldts') };
  const service = gatehouse.createAccountService({
    store: new MemoryUserStore(),
    sender: { send: async () => undefined },
    options: { secretKey: 'k'.repeat(40), passkeys: { publicUrl: 'https://accounts.example.com' } },
  });
  const configured = { webauthn: loaded('@simplewebauthn'), suffixes: loaded('tldts') };
  service.passkeys.signInOptions().then((options) => {
    const used = { webauthn: loaded('@simplewebauthn'), rpId: options.rpId };
    process.stdout.write(JSON.stringify({ atStart, configured, used }));
  });
`;

describe('passkeys load their libraries only when used', () => {
  it('loads neither library at start, the suffix list when configured, @simplewebauthn/server at the first ceremony', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', PROBE, ENTRY, TESTING], { encoding: 'utf8' }));
    expect(out.atStart).to.deep.equal({ webauthn: false, suffixes: false });
    expect(out.configured).to.deep.equal({ webauthn: false, suffixes: true });
    expect(out.used).to.deep.equal({ webauthn: true, rpId: 'accounts.example.com' });
  });
});
