import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { loadConfig } from '../../src/server/config';
import { codesIn, readDoc, ROOT, tableUnder } from './markdown';

const PAGE = 'docs/reference/configuration.md';
/** The folders that read the environment: the standalone server and the CLI. */
const READERS = ['src/server', 'src/cli'];

/** The variables the server and the CLI read, from their sources (comments left out). */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const folder of READERS) {
    for (const file of readdirSync(path.join(ROOT, folder)).filter((name) => name.endsWith('.ts'))) {
      const code = readFileSync(path.join(ROOT, folder, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
      for (const match of code.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(match[1]);
      // parseOutbox reads `GATEHOUSE_OUTBOX_${name}` for each duration('NAME', ...).
      for (const match of code.matchAll(/\bduration\('([A-Z_]+)'/g)) names.add(`GATEHOUSE_OUTBOX_${match[1]}`);
      // parseOidc reads `GATEHOUSE_OIDC_<ID>_${name}` of each provider for each providerEnv('NAME').
      for (const match of code.matchAll(/\bproviderEnv\('([A-Z_]+)'\)/g)) names.add(`GATEHOUSE_OIDC_<ID>_${match[1]}`);
    }
  }
  return names;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function durationMs(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

describe('docs/reference/configuration.md against the code', () => {
  const rows = tableUnder(readDoc(PAGE), 'Environment variables (standalone server and CLI)');
  const documented = new Map<string, string>();
  for (const [names, , defaults] of rows) {
    for (const name of codesIn(names)) documented.set(name, defaults);
  }
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'gatehouse-docs-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('documents every variable the server and the CLI read, and no other', () => {
    expect([...documented.keys()].sort()).to.deep.equal([...variablesRead()].sort());
  });

  it('every documented GATEHOUSE_ variable of the loader refuses a bad value with a message naming it', () => {
    // GATEHOUSE_LOG_LEVEL is read before the rest, by parseLogLevel; every other one goes through loadConfig.
    const validated = [...documented.keys()].filter(
      (name) => name.startsWith('GATEHOUSE_') && name !== 'GATEHOUSE_LOG_LEVEL',
    );
    const spaced = ['GATEHOUSE_PREFIX', 'GATEHOUSE_TRUSTED_PROXIES', 'GATEHOUSE_REDIS_KEY_PREFIX'];
    // A provider's variables (`GATEHOUSE_OIDC_<ID>_ISSUER`) are tried on a provider `corp` that is otherwise right.
    const provider = {
      GATEHOUSE_PUBLIC_URL: 'https://accounts.example.com',
      GATEHOUSE_OIDC_PROVIDERS: 'corp',
      GATEHOUSE_OIDC_CORP_ISSUER: 'https://id.example.com',
      GATEHOUSE_OIDC_CORP_CLIENT_ID: 'gatehouse',
      GATEHOUSE_OIDC_CORP_CLIENT_SECRET: 'a-client-secret',
    };
    for (const documentedName of validated) {
      const name = documentedName.replace('<ID>', 'CORP');
      // Free text (a name, a client id or secret, a claim's value) is bounded by its length and its characters.
      const free: Record<string, string> = {
        GATEHOUSE_SECRET_KEY: 'short',
        GATEHOUSE_WEBAUTHN_RP_NAME: 'x'.repeat(65),
        GATEHOUSE_OIDC_CORP_NAME: 'x'.repeat(65),
        GATEHOUSE_OIDC_CORP_CLIENT_ID: 'line\nbreak',
        GATEHOUSE_OIDC_CORP_CLIENT_SECRET: ' ',
        GATEHOUSE_OIDC_CORP_TRUSTED_AMR: 'x'.repeat(257),
        GATEHOUSE_OIDC_CORP_TRUSTED_ACR: 'x'.repeat(257),
      };
      const bad = free[name] ?? (spaced.includes(name) ? 'not a ~ value' : 'ftp:bogus-0x');
      const base = name === documentedName ? {} : provider;
      expect(() => loadConfig({ GATEHOUSE_SECRET_KEY: 'k'.repeat(40), ...base, [name]: bad }, { cwd }), name).to.throw(
        ConfigurationError,
        name,
      );
    }
  });

  it('gives the durations the defaults the loader applies', () => {
    const config = loadConfig({}, { cwd, ephemeralSecret: true });
    const applied: Record<string, number> = {
      GATEHOUSE_UNVERIFIED_TTL: config.unverifiedRegistrationTtlMs,
      GATEHOUSE_OUTBOX_RETRY_BASE: config.outbox.retryBaseMs,
      GATEHOUSE_OUTBOX_RETRY_MAX: config.outbox.retryMaxMs,
      GATEHOUSE_OUTBOX_GIVE_UP: config.outbox.giveUpAfterMs,
      GATEHOUSE_OUTBOX_LEASE: config.outbox.leaseMs,
      GATEHOUSE_OUTBOX_POLL_INTERVAL: config.outbox.pollIntervalMs,
      GATEHOUSE_OUTBOX_RETENTION: config.outbox.retentionMs,
      GATEHOUSE_AUDIT_RETENTION: config.auditRetentionMs,
    };
    for (const [names, , defaults] of rows) {
      const listed = codesIn(names).filter((name) => name in applied);
      if (listed.length === 0) continue;
      // "`5s`, `30m`": one default per variable of the row, in order.
      expect(codesIn(defaults).map(durationMs), names).to.deep.equal(listed.map((name) => applied[name]));
    }
  });

  it('gives the plain defaults the loader applies', () => {
    const config = loadConfig({}, { cwd, ephemeralSecret: true });
    expect(codesIn(documented.get('PORT')!)).to.deep.equal([String(config.port), config.host]);
    expect(codesIn(documented.get('GATEHOUSE_PREFIX')!)).to.deep.equal([config.prefix]);
    expect(codesIn(documented.get('GATEHOUSE_CLEANUP_INTERVAL')!)).to.deep.equal([
      String(config.cleanupIntervalMs / 1000),
    ]);
    expect(codesIn(documented.get('GATEHOUSE_EMAIL_FROM')!)).to.deep.equal([config.emailFrom]);
    expect(codesIn(documented.get('GATEHOUSE_DATABASE_URL')!)).to.deep.equal(['sqlite:./data/gatehouse.db']);
    expect(config.database).to.deep.equal({ kind: 'sqlite', filename: path.join(cwd, 'data', 'gatehouse.db') });
  });
});
