import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { resolveAccountOptions } from '../../src/services/account-options';
import { accountOptionsOf, loadConfig } from '../../src/server/config';

const KEY = 'k'.repeat(40);

describe('API keys: the standalone server’s environment (GATEHOUSE_API_KEY_*)', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-api-key-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ GATEHOUSE_SECRET_KEY: KEY, ...env }, { cwd });
  const resolved = (env: Record<string, string>) => resolveAccountOptions(accountOptionsOf(load(env)));

  it('leaves the core’s defaults when nothing is set: prefix gatehouse, 366 and 30 days, 50 keys', () => {
    expect(load({}).apiKeys).to.deep.equal({});
    expect(resolved({})).to.include({
      apiKeyPrefix: 'gatehouse',
      apiKeyMaxLifetimeDays: 366,
      apiKeyDefaultLifetimeDays: 30,
      apiKeyMaxPerUser: 50,
    });
    // Empty is unset, as for the other variables.
    expect(load({ GATEHOUSE_API_KEY_PREFIX: ' ', GATEHOUSE_API_KEY_MAX_PER_USER: '' }).apiKeys).to.deep.equal({});
  });

  it('reads each variable and hands it to the core', () => {
    const env = {
      GATEHOUSE_API_KEY_PREFIX: 'acme_live',
      GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '90',
      GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS: '7',
      GATEHOUSE_API_KEY_MAX_PER_USER: '10',
    };
    expect(resolved(env)).to.include({
      apiKeyPrefix: 'acme_live',
      apiKeyMaxLifetimeDays: 90,
      apiKeyDefaultLifetimeDays: 7,
      apiKeyMaxPerUser: 10,
    });
    expect(resolved({ GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '30' })).to.include({
      apiKeyMaxLifetimeDays: 30,
      apiKeyDefaultLifetimeDays: 30,
    });
  });

  it('stops the start on each bad value, naming its variable', () => {
    const cases: Record<string, string>[] = [
      { GATEHOUSE_API_KEY_PREFIX: 'ab' },
      { GATEHOUSE_API_KEY_PREFIX: 'Acme' },
      { GATEHOUSE_API_KEY_PREFIX: 'acme-live' },
      { GATEHOUSE_API_KEY_PREFIX: 'a'.repeat(25) },
      { GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '0' },
      { GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '1.5' },
      { GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '3651' },
      { GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: 'a year' },
      // Below the default lifetime of 30 days, which would then be refused by the core.
      { GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '7' },
      { GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS: '-1' },
      // Over the default maximum (366).
      { GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS: '400' },
      { GATEHOUSE_API_KEY_MAX_PER_USER: '0' },
      { GATEHOUSE_API_KEY_MAX_PER_USER: 'many' },
      { GATEHOUSE_API_KEY_MAX_PER_USER: '1000000' },
    ];
    for (const env of cases) {
      const [name] = Object.keys(env);
      expect(() => load(env), JSON.stringify(env)).to.throw(ConfigurationError, name);
    }
    // The two lifetimes together: the default may not exceed the maximum, and the message names both.
    expect(() =>
      load({ GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS: '60', GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS: '90' }),
    ).to.throw(ConfigurationError, /GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS \(90\).*GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS \(60\)/);
  });
});
