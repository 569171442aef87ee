import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const CLIENT = join(__dirname, '../../src/services/oidc/provider-client.js');

// In a fresh process: openid-client is not loaded with the provider client, nor by making a client, but by a flow.
const PROBE = `
  const loaded = (name) => Object.keys(require.cache).some((file) => file.includes('/node_modules/' + name + '/'));
  const { providerClient, newFlowSecrets } = require(process.argv[1]);
  const atStart = loaded('openid-client');
  providerClient({ id: 'corp', name: 'Corp', kind: 'oidc', issuer: 'https://idp.example', clientId: 'c',
    clientSecret: 's', scopes: ['openid'], allowedEmailDomains: [], trustedAmr: [], trustedAcr: [],
    authorizationEndpoint: null, tokenEndpoint: null, apiBase: null });
  const made = loaded('openid-client');
  newFlowSecrets().then(() => process.stdout.write(JSON.stringify({ atStart, made, used: loaded('openid-client') })));
`;

describe('oidc: openid-client is loaded only when a flow needs it', () => {
  it('loads it neither with the provider client nor when a client is made, but at the first flow', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', PROBE, CLIENT], { encoding: 'utf8' }));
    expect(out).to.deep.equal({ atStart: false, made: false, used: true });
  });
});
