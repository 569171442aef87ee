import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../src/errors/configuration-error';
import {
  DEFAULT_LIMITS,
  DEFAULT_LOGIN_BACKOFF,
  LIMIT_NAMES,
  resolveRateLimitOptions,
} from '../../src/limits/rate-limit-options';
import { parseRateLimitSpec } from '../../src/limits/rate-limit-spec';
import { loadConfig } from '../../src/server/config';

const KEY = 'k'.repeat(40);

describe('rate limits: options, GATEHOUSE_RATE_LIMITS and the other variables', () => {
  it('defaults every limit, on, in memory, with the documented numbers', () => {
    const resolved = resolveRateLimitOptions();
    expect(resolved.enabled).to.equal(true);
    expect(resolved.redis).to.equal(undefined);
    expect(resolved.keyPrefix).to.equal('gatehouse:rl');
    expect(Object.keys(resolved.limits).sort()).to.deep.equal([...LIMIT_NAMES].sort());
    expect(resolved.limits).to.deep.equal({
      'login.ip': { points: 100, duration: 60 },
      'register.ip': { points: 60, duration: 3600 },
      'verify-email.ip': { points: 120, duration: 3600 },
      'resend-verification.ip': { points: 60, duration: 3600 },
      'reset-request.ip': { points: 60, duration: 3600 },
      'reset-confirm.ip': { points: 60, duration: 3600 },
      'password-change.ip': { points: 60, duration: 3600 },
      'reauthenticate.ip': { points: 60, duration: 3600 },
      'email-change.ip': { points: 60, duration: 3600 },
      'email-change-confirm.ip': { points: 60, duration: 3600 },
      'sessions.ip': { points: 120, duration: 60 },
      'second-factor.ip': { points: 100, duration: 60 },
      'second-factor-manage.ip': { points: 60, duration: 3600 },
      'passkeys.ip': { points: 120, duration: 60 },
      'oidc.ip': { points: 120, duration: 60 },
      'oidc-exchange.ip': { points: 100, duration: 60 },
      'organizations.ip': { points: 600, duration: 60 },
      'org-invite.ip': { points: 300, duration: 3600 },
      'org-accept.ip': { points: 300, duration: 3600 },
      'admin.ip': { points: 600, duration: 60 },
      // The API keys' routes (the owner's, and revocation by possession).
      'api-keys.ip': { points: 120, duration: 60 },
      'api-key-revoke.ip': { points: 300, duration: 3600 },
      // The guards' API-key budgets (accountGuards).
      'api-key.key': { points: 600, duration: 60 },
      'api-key-invalid.ip': { points: 60, duration: 60 },
      'login.account': { points: 50, duration: 3600 },
      'register.email': { points: 5, duration: 3600 },
      'resend-verification.email': { points: 5, duration: 3600 },
      'reset-request.email': { points: 5, duration: 3600 },
      'email-change.email': { points: 5, duration: 3600 },
      'org-invite.user': { points: 200, duration: 3600 },
    });
    expect(resolved.loginBackoff).to.deep.equal({ freeFailures: 10, initialDelay: 1, maxDelay: 300 });
  });

  it('keeps the per-account cap at or under 50 a fixed hour, so no 60 minutes can see more than 100 (ASVS 2.2.1)', () => {
    const cap = DEFAULT_LIMITS['login.account'];
    expect(cap.duration).to.equal(3600);
    // Any 60-minute span overlaps at most two fixed windows of an hour.
    expect(2 * cap.points).to.be.at.most(100);
    expect(DEFAULT_LOGIN_BACKOFF.freeFailures).to.be.below(cap.points);
  });

  it('overrides single limits and the backoff, and refuses what cannot work with a message naming it', () => {
    const resolved = resolveRateLimitOptions({
      limits: { 'login.ip': { points: 5, duration: 10 } },
      loginBackoff: { maxDelay: 60 },
    });
    expect(resolved.limits['login.ip']).to.deep.equal({ points: 5, duration: 10 });
    expect(resolved.limits['register.ip']).to.deep.equal(DEFAULT_LIMITS['register.ip']);
    expect(resolved.loginBackoff).to.deep.equal({ freeFailures: 10, initialDelay: 1, maxDelay: 60 });

    const bad: [unknown, RegExp][] = [
      [{ limits: { 'login.typo': { points: 1, duration: 1 } } }, /no limit "login.typo"/],
      [{ limits: { 'login.ip': { points: 0, duration: 60 } } }, /login\.ip.*points >= 1/],
      [{ limits: { 'login.ip': { points: 5, duration: 0.5 } } }, /login\.ip.*duration >= 1/],
      [{ loginBackoff: { initialDelay: 10, maxDelay: 5 } }, /maxDelay >= initialDelay/],
      [{ loginBackoff: { freeFailures: -1 } }, /freeFailures >= 0/],
      [{ redisTimeoutMs: 0 }, /redisTimeoutMs/],
      [{ keyPrefix: '' }, /keyPrefix/],
    ];
    for (const [options, message] of bad) {
      expect(() => resolveRateLimitOptions(options as never), JSON.stringify(options))
        .to.throw(ConfigurationError)
        .with.property('message')
        .that.matches(message);
    }
  });

  it('reads the text form: off, points/duration with units, and the backoff', () => {
    expect(parseRateLimitSpec('off')).to.deep.equal({ enabled: false });
    expect(parseRateLimitSpec(' OFF ')).to.deep.equal({ enabled: false });
    const spec = 'login.ip=60/1m, reset-request.email=3/1h,verify-email.ip=10/45s,login.account=40/3600';
    expect(parseRateLimitSpec(spec)).to.deep.equal({
      limits: {
        'login.ip': { points: 60, duration: 60 },
        'reset-request.email': { points: 3, duration: 3600 },
        'verify-email.ip': { points: 10, duration: 45 },
        'login.account': { points: 40, duration: 3600 },
      },
    });
    expect(parseRateLimitSpec('login.backoff=3/2s/10m')).to.deep.equal({
      limits: {},
      loginBackoff: { freeFailures: 3, initialDelay: 2, maxDelay: 600 },
    });
    for (const [text, message] of [
      ['login.ip', /not <name>=<value>/],
      ['login.ip=60', /takes <points>\/<duration>/],
      ['login.ip=sixty/1m', /not a whole number/],
      ['login.ip=60/1d', /not a duration/],
      ['login.ip=0/1m', /points >= 1/],
      ['logn.ip=60/1m', /unknown limit "logn.ip"/],
      ['login.backoff=3/2s', /login.backoff takes/],
      ['login.backoff=3/10m/2s', /maxDelay >= initialDelay/],
    ] as const) {
      expect(() => parseRateLimitSpec(text), text)
        .to.throw(ConfigurationError)
        .with.property('message')
        .that.matches(message);
    }
  });

  describe('in the standalone configuration', () => {
    let cwd: string;
    beforeEach(() => {
      cwd = mkdtempSync(join(tmpdir(), 'gatehouse-limits-config-'));
    });
    afterEach(() => rmSync(cwd, { recursive: true, force: true }));

    it('defaults to limits on, in memory, no trusted proxy', () => {
      const config = loadConfig({ GATEHOUSE_SECRET_KEY: KEY }, { cwd });
      expect(config).to.deep.include({
        redisUrl: undefined,
        redisKeyPrefix: undefined,
        trustedProxies: [],
        rateLimits: {},
      });
    });

    it('reads GATEHOUSE_REDIS_URL, GATEHOUSE_REDIS_KEY_PREFIX, GATEHOUSE_TRUSTED_PROXIES and GATEHOUSE_RATE_LIMITS', () => {
      const config = loadConfig(
        {
          GATEHOUSE_SECRET_KEY: KEY,
          GATEHOUSE_REDIS_URL: 'redis://:secret@cache:6379/2',
          GATEHOUSE_REDIS_KEY_PREFIX: 'staging:rl',
          GATEHOUSE_TRUSTED_PROXIES: '10.0.0.0/8, loopback,2001:db8::1',
          GATEHOUSE_RATE_LIMITS: 'login.ip=100/1m',
        },
        { cwd },
      );
      expect(config).to.deep.include({
        redisUrl: 'redis://:secret@cache:6379/2',
        redisKeyPrefix: 'staging:rl',
        trustedProxies: ['10.0.0.0/8', 'loopback', '2001:db8::1'],
        rateLimits: { limits: { 'login.ip': { points: 100, duration: 60 } } },
      });
      expect(loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_RATE_LIMITS: 'off' }, { cwd }).rateLimits).to.deep.equal(
        {
          enabled: false,
        },
      );
    });

    for (const [name, value, message] of [
      ['GATEHOUSE_REDIS_URL', 'cache:6379', /GATEHOUSE_REDIS_URL must start with redis:\/\/ or rediss:\/\//],
      ['GATEHOUSE_REDIS_URL', 'http://cache', /GATEHOUSE_REDIS_URL must start with redis:\/\//],
      ['GATEHOUSE_REDIS_KEY_PREFIX', 'has space', /GATEHOUSE_REDIS_KEY_PREFIX/],
      [
        'GATEHOUSE_TRUSTED_PROXIES',
        '10.0.0.0/8,proxy.internal',
        /GATEHOUSE_TRUSTED_PROXIES: "proxy.internal" is not an IP/,
      ],
      ['GATEHOUSE_TRUSTED_PROXIES', '10.0.0.0/33', /"10.0.0.0\/33"/],
      ['GATEHOUSE_RATE_LIMITS', 'login.ip=lots', /^GATEHOUSE_RATE_LIMITS: login.ip takes <points>\/<duration>/],
    ] as const) {
      it(`stops with one clear line on ${name}=${value}`, () => {
        expect(() => loadConfig({ GATEHOUSE_SECRET_KEY: KEY, [name]: value }, { cwd }))
          .to.throw(ConfigurationError)
          .with.property('message')
          .that.matches(message)
          .and.does.not.include('\n');
      });
    }
  });
});
