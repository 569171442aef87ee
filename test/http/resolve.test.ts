import { expect } from 'chai';
import { Container } from 'typedi';
import { resolveAccountService, resolveSerializer } from '../../src/di/resolve';
import { ACCOUNT_OPTIONS, CLOCK, EMAIL_SENDER, LOGGER, USER_SERIALIZER, USER_STORE } from '../../src/di/tokens';
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
    await resolveAccountService(container).createRole('fresh');
    expect(await store.listRoles()).to.deep.equal([{ name: 'fresh', permissions: [] }]);
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
      passwordHash: '$argon2id$secret',
      verified: true,
      createdAt: new Date(0),
      updatedAt: new Date(0),
      disabledAt: null,
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
