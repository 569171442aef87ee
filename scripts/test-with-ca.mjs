// `npm test`: mocha, with the test providers' CA (test/fixtures/oidc/ca.pem) trusted on top of whatever the
// environment trusts already. NODE_EXTRA_CA_CERTS names one file and is read once, when Node starts, so the test
// process gets a bundle of both: setting the variable to the test CA alone would drop a CA the machine relies on (a
// proxy's or a company's, through which npm reaches the registry in the tarball test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const inherited = process.env.NODE_EXTRA_CA_CERTS;
const certificates = [readFileSync(join(root, 'test/fixtures/oidc/ca.pem'), 'utf8')];
if (inherited && existsSync(inherited)) certificates.unshift(readFileSync(inherited, 'utf8'));

const folder = mkdtempSync(join(tmpdir(), 'gatehouse-test-ca-'));
const bundle = join(folder, 'ca.pem');
writeFileSync(bundle, certificates.join('\n'));
const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const run = spawnSync(process.execPath, [mocha, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_EXTRA_CA_CERTS: bundle },
});
rmSync(folder, { recursive: true, force: true });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
