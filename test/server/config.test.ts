import { ConfigurationError } from '../../src/errors/configuration-error';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountOptionsOf, loadConfig } from '../../src/server/config';

const KEY = 'k'.repeat(40);

describe('server configuration', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('applies the documented defaults', () => {
    const config = loadConfig({ GATEHOUSE_SECRET_KEY: KEY }, { cwd });
    expect(config).to.deep.include({
      port: 8000,
      host: '127.0.0.1',
      prefix: '/auth',
      secretKey: KEY,
      database: { kind: 'sqlite', filename: join(cwd, 'data/gatehouse.db') },
      smtpUrl: undefined,
      emailFrom: 'Gatehouse <no-reply@localhost>',
      publicUrl: 'http://127.0.0.1:8000',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '9001',
        HOST: '0.0.0.0',
        GATEHOUSE_PREFIX: '/api/accounts/',
        GATEHOUSE_SECRET_KEY: KEY,
        GATEHOUSE_DATABASE_URL: 'postgres://app@db/accounts',
        GATEHOUSE_SMTP_URL: 'smtp://user:pass@mail:2525',
        GATEHOUSE_EMAIL_FROM: 'Accounts <accounts@example.com>',
        GATEHOUSE_PUBLIC_URL: 'https://example.com/',
      },
      { cwd },
    );
    expect(config).to.deep.include({
      port: 9001,
      host: '0.0.0.0',
      prefix: '/api/accounts',
      database: { kind: 'postgres', connectionString: 'postgres://app@db/accounts', preparedStatements: true },
      smtpUrl: 'smtp://user:pass@mail:2525',
      emailFrom: 'Accounts <accounts@example.com>',
      publicUrl: 'https://example.com',
    });
  });

  it('runs the request-path reads as prepared statements on PostgreSQL unless GATEHOUSE_PG_PREPARED_STATEMENTS=off', () => {
    const prepared = (value?: string) =>
      loadConfig(
        {
          GATEHOUSE_SECRET_KEY: KEY,
          GATEHOUSE_DATABASE_URL: 'postgres://app@db/accounts',
          GATEHOUSE_PG_PREPARED_STATEMENTS: value,
        },
        { cwd },
      ).database;
    expect(
      [prepared(), prepared('on'), prepared('off')].map(
        (database) => 'preparedStatements' in database && database.preparedStatements,
      ),
    ).to.deep.equal([true, true, false]);
    expect(() => prepared('maybe')).to.throw(/GATEHOUSE_PG_PREPARED_STATEMENTS must be on or off/);
  });

  it('removes expired sessions hourly by default; GATEHOUSE_CLEANUP_INTERVAL sets seconds, 0 turns it off', () => {
    const interval = (value?: string) =>
      loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_CLEANUP_INTERVAL: value }, { cwd }).cleanupIntervalMs;
    expect([interval(), interval('90'), interval('0')]).to.deep.equal([3_600_000, 90_000, 0]);
  });

  it('reads GATEHOUSE_OUTBOX_* as durations (bare numbers are seconds), with the documented defaults', () => {
    expect(loadConfig({ GATEHOUSE_SECRET_KEY: KEY }, { cwd }).outbox).to.deep.equal({
      worker: true,
      pollIntervalMs: 2_000,
      retryBaseMs: 5_000,
      retryMaxMs: 1_800_000,
      giveUpAfterMs: 86_400_000,
      leaseMs: 60_000,
      retentionMs: 604_800_000,
    });
    const config = loadConfig(
      {
        GATEHOUSE_SECRET_KEY: KEY,
        GATEHOUSE_OUTBOX_WORKER: 'off',
        GATEHOUSE_OUTBOX_POLL_INTERVAL: '250ms',
        GATEHOUSE_OUTBOX_RETRY_BASE: '10',
        GATEHOUSE_OUTBOX_RETRY_MAX: '1h',
        GATEHOUSE_OUTBOX_GIVE_UP: '2d',
        GATEHOUSE_OUTBOX_LEASE: '2m',
        GATEHOUSE_OUTBOX_RETENTION: '30d',
      },
      { cwd },
    );
    expect(config.outbox).to.deep.equal({
      worker: false,
      pollIntervalMs: 250,
      retryBaseMs: 10_000,
      retryMaxMs: 3_600_000,
      giveUpAfterMs: 172_800_000,
      leaseMs: 120_000,
      retentionMs: 2_592_000_000,
    });
  });

  it('keeps audit events 365 days by default; GATEHOUSE_AUDIT_RETENTION is a duration of at least a day', () => {
    const retention = (value?: string) =>
      loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_AUDIT_RETENTION: value }, { cwd }).auditRetentionMs;
    expect([retention(), retention('90d'), retention('24h')]).to.deep.equal([
      365 * 86_400_000,
      90 * 86_400_000,
      86_400_000,
    ]);
    // The core is given it: the clean-up removes events older than this.
    const config = loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_AUDIT_RETENTION: '30d' }, { cwd });
    expect(accountOptionsOf(config).auditRetentionMs).to.equal(30 * 86_400_000);
  });

  it('sets the hashing threads 10 below the event loop by default; GATEHOUSE_HASHING_NICE takes 0 (off) to 19', () => {
    const nice = (value?: string) =>
      loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_HASHING_NICE: value }, { cwd }).hashingNice;
    expect([nice(), nice(''), nice('0'), nice('19')]).to.deep.equal([10, 10, 0, 19]);
    for (const bad of ['20', '-1', '5.5', 'low']) {
      expect(() => nice(bad)).to.throw(ConfigurationError, /GATEHOUSE_HASHING_NICE must be a whole number from 0/);
    }
  });

  it('accepts an empty prefix', () => {
    expect(loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_PREFIX: '' }, { cwd }).prefix).to.equal('');
  });

  for (const [variable, value, message] of [
    ['GATEHOUSE_SECRET_KEY', 'too-short', /GATEHOUSE_SECRET_KEY is 9 bytes; it must be at least 32/],
    ['GATEHOUSE_DATABASE_URL', 'mysql://root@localhost/db', /unknown scheme "mysql:"/],
    ['GATEHOUSE_DATABASE_URL', 'data.db', /no scheme/],
    ['PORT', 'eighty', /PORT must be a number/],
    ['GATEHOUSE_PREFIX', 'auth', /GATEHOUSE_PREFIX must be empty or a path/],
    ['GATEHOUSE_SMTP_URL', 'http://mail', /must start with smtp:\/\/ or smtps:\/\//],
    ['GATEHOUSE_PUBLIC_URL', 'ftp://example.com', /must start with http/],
    ['GATEHOUSE_EMAIL_FROM', 'a@b.c\r\nBcc: x@y.z', /GATEHOUSE_EMAIL_FROM/],
    ['GATEHOUSE_SECRET_KEY', '', /GATEHOUSE_SECRET_KEY is set but empty/],
    ['HOST', '999.1.1.1', /HOST "999\.1\.1\.1" is not a valid host name/],
    ['GATEHOUSE_CLEANUP_INTERVAL', '1h', /GATEHOUSE_CLEANUP_INTERVAL must be whole seconds from 0 \(off\)/],
    ['GATEHOUSE_CLEANUP_INTERVAL', '999999', /GATEHOUSE_CLEANUP_INTERVAL must be whole seconds/],
    ['GATEHOUSE_OUTBOX_WORKER', 'yes', /GATEHOUSE_OUTBOX_WORKER must be on or off/],
    ['GATEHOUSE_OUTBOX_RETRY_BASE', '5 s', /GATEHOUSE_OUTBOX_RETRY_BASE must be a duration from 10ms to 1d/],
    ['GATEHOUSE_OUTBOX_GIVE_UP', '0', /GATEHOUSE_OUTBOX_GIVE_UP must be a duration from 1s/],
    ['GATEHOUSE_OUTBOX_RETRY_MAX', '1s', /GATEHOUSE_OUTBOX_RETRY_MAX must be at least GATEHOUSE_OUTBOX_RETRY_BASE/],
    // Bare numbers are seconds: `30` meaning days would empty the trail at the next clean-up.
    ['GATEHOUSE_AUDIT_RETENTION', '30', /GATEHOUSE_AUDIT_RETENTION must be a duration from 1d to 3650d/],
    ['GATEHOUSE_AUDIT_RETENTION', '1y', /GATEHOUSE_AUDIT_RETENTION must be a duration/],
  ] as const) {
    it(`refuses ${variable}=${JSON.stringify(value)} with one line saying what to fix`, () => {
      const env = { GATEHOUSE_SECRET_KEY: KEY, [variable]: value };
      expect(() => loadConfig(env, { cwd }))
        .to.throw(ConfigurationError, message)
        .with.property('message')
        .that.does.not.include('\n');
    });
  }

  it('requires the secret key in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' }, { cwd })).to.throw(
      ConfigurationError,
      /required when NODE_ENV=production/,
    );
  });

  it('generates a development key once, keeps it private, and reuses it', () => {
    const warnings: string[] = [];
    const first = loadConfig({}, { cwd, warn: (w) => warnings.push(w) });
    const second = loadConfig({}, { cwd, warn: (w) => warnings.push(w) });
    expect(first.secretKeyGenerated).to.equal(true);
    expect(second.secretKey).to.equal(first.secretKey);
    expect(Buffer.byteLength(first.secretKey)).to.be.at.least(32);
    const file = join(cwd, 'data/secret.key');
    expect(readFileSync(file, 'utf8').trim()).to.equal(first.secretKey);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.not.include(first.secretKey);
  });

  it('gives instances starting at once in one folder the same development key', async () => {
    const config = require.resolve('../../src/server/config');
    const script = `process.stdout.write(require(${JSON.stringify(config)}).loadConfig({}, { cwd: ${JSON.stringify(cwd)} }).secretKey)`;
    const keys = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string>((resolve, reject) => {
            execFile(process.execPath, ['-e', script], (error, stdout) => (error ? reject(error) : resolve(stdout)));
          }),
      ),
    );
    expect(new Set(keys).size, keys.join('\n')).to.equal(1);
    expect(readFileSync(join(cwd, 'data/secret.key'), 'utf8').trim()).to.equal(keys[0]);
    expect(readdirSync(join(cwd, 'data'))).to.deep.equal(['secret.key']);
  });

  it('replaces a kept key file too short to be a key', () => {
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'data/secret.key'), 'short\n');
    const config = loadConfig({}, { cwd });
    expect(Buffer.byteLength(config.secretKey)).to.be.at.least(32);
    expect(readFileSync(join(cwd, 'data/secret.key'), 'utf8').trim()).to.equal(config.secretKey);
  });
});
