import { expect } from 'chai';
import { Container, type Token } from 'typedi';
import { resolveAccountService, resolveSerializer } from '../../src/di/resolve';
import {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  USER_SERIALIZER,
  USER_STORE,
} from '../../src/di/tokens';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { StoredUser } from '../../src/services/types';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { TEST_SECRET } from '../support/test-app';
import { CHEAP_HASHING } from '../support/fixtures';

const OPTIONS = { secretKey: TEST_SECRET, hashing: CHEAP_HASHING };

describe('resolveAccountService / resolveSerializer', () => {
  // A container of its own: these tests remove tokens, which must not disturb the global one.
  const container = Container.of('gatehouse-resolve-test');
  beforeEach(() => {
    container.reset();
    container.set(USER_STORE, new MemoryUserStore());
    container.set(ACCOUNT_OPTIONS, OPTIONS);
    container.set(EMAIL_SENDER, new RecordingEmailSender());
    container.set(LOGGER, new CapturingLogger());
  });

  it('names the missing required token', () => {
    container.remove(USER_STORE);
    expect(() => resolveAccountService(container)).to.throw(ConfigurationError, /USER_STORE/);
    container.set(USER_STORE, new MemoryUserStore());
    container.remove(ACCOUNT_OPTIONS);
    expect(() => resolveAccountService(container)).to.throw(Error, /ACCOUNT_OPTIONS/);
  });

  it('passes on the core’s refusal of bad options', () => {
    container.set(ACCOUNT_OPTIONS, { secretKey: 'short' });
    expect(() => resolveAccountService(container)).to.throw(ConfigurationError, /secret key/);
  });

  it('builds once and returns the same service while the tokens hold the same values', () => {
    const first = resolveAccountService(container);
    expect(resolveAccountService(container)).to.equal(first);
    expect(resolveAccountService(container)).to.equal(first);
  });

  for (const [name, token, value] of [
    ['USER_STORE', USER_STORE, () => new MemoryUserStore()],
    ['ACCOUNT_OPTIONS', ACCOUNT_OPTIONS, () => ({ ...OPTIONS })],
    ['EMAIL_SENDER', EMAIL_SENDER, () => new RecordingEmailSender()],
    ['CLOCK', CLOCK, () => ({ now: () => new Date() })],
    ['LOGGER', LOGGER, () => new CapturingLogger()],
  ] as const) {
    it(`builds a fresh service when ${name} is set again`, () => {
      const first = resolveAccountService(container);
      container.set(token as never, value());
      const second = resolveAccountService(container);
      expect(second).to.not.equal(first);
      expect(resolveAccountService(container)).to.equal(second);
    });
  }

  it('hands a started email worker over to the service built after a token changes', async () => {
    const first = resolveAccountService(container);
    first.delivery!.start();
    container.set(LOGGER, new CapturingLogger());
    const second = resolveAccountService(container);
    expect([first.delivery!.polling, second.delivery!.polling]).to.deep.equal([false, true]);
    await second.delivery!.stop();
    container.set(LOGGER, new CapturingLogger());
    expect(resolveAccountService(container).delivery!.polling, 'a stopped worker is not restarted').to.equal(false);
  });

  it('builds no worker where another process delivers (outbox.worker: false)', () => {
    container.set(ACCOUNT_OPTIONS, { ...OPTIONS, outbox: { worker: false } });
    expect(resolveAccountService(container).delivery).to.equal(null);
  });

  it('uses the new store after USER_STORE is replaced', async () => {
    const store = new MemoryUserStore();
    resolveAccountService(container);
    container.set(USER_STORE, store);
    await resolveAccountService(container).access.createRole('fresh');
    expect(await store.access.listRoles()).to.deep.equal([{ name: 'fresh', permissions: [] }]);
  });

  it('defaults the sender to one console sender (kept across calls), so the service stays memoized', async () => {
    container.remove(EMAIL_SENDER);
    const first = resolveAccountService(container);
    expect(resolveAccountService(container)).to.equal(first);
    const printed: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      await first.register({ username: 'alice', email: 'alice@example.com', password: 'violet staircase 42 umbrella' });
      await first.drain();
    } finally {
      process.stdout.write = write;
    }
    expect(printed.join('')).to.include('To: alice@example.com');
    expect(printed.join('')).to.include('http://localhost:8000/auth/verify-email?token=');
    // Said once, so that a host mounted elsewhere learns why its links point there.
    const warnings = (container.get(LOGGER) as CapturingLogger).lines.filter((line) => line.level === 'warn');
    expect(warnings).to.have.length(1);
    expect(warnings[0].message).to.include('EMAIL_SENDER is not set');
  });

  it('the serializer defaults to { username, email, verified } and follows USER_SERIALIZER', () => {
    const user: StoredUser = {
      id: 'u1',
      username: 'alice',
      usernameKey: 'alice',
      email: 'alice@example.com',
      emailKey: 'alice@example.com',
      verified: true,
      createdAt: new Date(0),
      updatedAt: new Date(0),
      disabledAt: null,
      credentialEpoch: 0,
    };
    expect(resolveSerializer(container)(user)).to.deep.equal({
      username: 'alice',
      email: 'alice@example.com',
      verified: true,
    });
    container.set(USER_SERIALIZER, (u: StoredUser) => ({ id: u.id }));
    expect(resolveSerializer(container)(user)).to.deep.equal({ id: 'u1' });
  });
});

describe('resolveAccountService on the global container (followed without asking it on every call)', () => {
  const tokens = [USER_STORE, ACCOUNT_OPTIONS, EMAIL_SENDER, CLOCK, LOGGER, RATE_LIMITS] as Token<unknown>[];
  // The global container is shared with the other suites: what it held is put back afterwards.
  let saved: Map<Token<unknown>, unknown>;
  before(() => {
    saved = new Map(tokens.filter((token) => Container.has(token)).map((token) => [token, Container.get(token)]));
  });
  after(() => {
    for (const token of tokens) {
      if (saved.has(token)) Container.set(token, saved.get(token));
      else Container.remove(token);
    }
  });
  beforeEach(() => {
    for (const token of tokens) Container.remove(token);
    Container.set(USER_STORE, new MemoryUserStore());
    Container.set(ACCOUNT_OPTIONS, OPTIONS);
    Container.set(EMAIL_SENDER, new RecordingEmailSender());
    Container.set(LOGGER, new CapturingLogger());
  });

  it('returns the same service while no token changes', () => {
    const first = resolveAccountService();
    expect(resolveAccountService()).to.equal(first);
    Container.set(LOGGER, Container.get(LOGGER));
    expect(resolveAccountService(), 'a token set to the value it held').to.equal(first);
  });

  for (const [name, token, value] of [
    ['USER_STORE', USER_STORE, () => new MemoryUserStore()],
    ['ACCOUNT_OPTIONS', ACCOUNT_OPTIONS, () => ({ ...OPTIONS })],
    ['EMAIL_SENDER', EMAIL_SENDER, () => new RecordingEmailSender()],
    ['LOGGER', LOGGER, () => new CapturingLogger()],
    ['CLOCK, unset until now', CLOCK, () => ({ now: () => new Date() })],
    ['RATE_LIMITS, unset until now', RATE_LIMITS, () => ({ enabled: false })],
  ] as const) {
    it(`builds a fresh service when ${name} is set`, () => {
      const first = resolveAccountService();
      Container.set(token as never, value());
      const second = resolveAccountService();
      expect(second).to.not.equal(first);
      expect(resolveAccountService()).to.equal(second);
    });
  }

  it('follows a removed token: an optional one rebuilds, a required one fails at once', () => {
    Container.set(CLOCK, { now: () => new Date() });
    const first = resolveAccountService();
    Container.remove(CLOCK);
    expect(resolveAccountService()).to.not.equal(first);
    Container.remove(USER_STORE);
    expect(() => resolveAccountService()).to.throw(ConfigurationError, /USER_STORE/);
  });

  it('calls a factory-registered store once, and a transient one on every call', () => {
    let made = 0;
    const factory = () => (made++, new MemoryUserStore());
    Container.set({ id: USER_STORE, factory });
    const first = resolveAccountService();
    expect(resolveAccountService()).to.equal(first);
    expect(made).to.equal(1);
    Container.remove(USER_STORE);
    Container.set({ id: USER_STORE, factory, transient: true });
    const [a, b] = [resolveAccountService(), resolveAccountService()];
    expect(a).to.not.equal(b);
    expect(made).to.equal(3);
  });
});
