import type { AccountOptions } from '../../src/services/account-options';
import type { AdminActor } from '../../src/services/admin-views';
import type { AuditEvent } from '../../src/services/audit-event';
import { TokenHasher } from '../../src/services/token-hasher';
import type { UserStore } from '../../src/services/user-store';
import { makeHarness, STRONG_PASSWORD, TEST_SECRET, type Harness } from '../support/core-harness';
import { CHEAP_HASHING } from '../support/fixtures';
import { requireService } from '../support/services';
import type { TestStoreKind } from '../support/test-stores';

/** The permissions the tests' people hold through the role `reporter`. */
export const REPORTER_PERMISSIONS = ['reports.read', 'reports.write'];

export interface KeyWorld extends Harness {
  /** A verified user holding `roles` (created if missing), signed in just now: its session token and id. */
  person(username: string, roles?: string[]): Promise<{ token: string; id: string; email: string }>;
  /** Every audit event of these types, oldest first. */
  events(...types: AuditEvent['type'][]): Promise<AuditEvent[]>;
  /** An administrator (the gatehouse-admin role, and `roles`), signed in just now. */
  administrator(username?: string, roles?: string[]): Promise<AdminActor & { kind: 'admin' }>;
  /** Creates the role with these permissions (as the operator), if missing. */
  role(name: string, permissions: readonly string[]): Promise<void>;
  /** Everything the store and the logger hold that could leak a key: audit rows, the outbox, the log lines. */
  everythingWritten(): Promise<string>;
}

/** The keyed hash the store keeps of a key: the one `TokenHasher` makes under the tests' secret. */
export function hashOf(key: string): string {
  return new TokenHasher(Buffer.from(TEST_SECRET)).hash(key);
}

/**
 * Opens a fresh store of `kind` before each test; the function returned gives the test's world, built on its first
 * call with `options()` as they are then.
 */
export function freshKeyWorld(
  kind: TestStoreKind,
  options: () => Partial<AccountOptions> = () => ({}),
): () => KeyWorld {
  let store: UserStore | undefined;
  let world: KeyWorld | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeEach(async function () {
    if (kind.service) await requireService(this, kind.service);
    const opened = await kind.open();
    store = opened.store;
    close = opened.close;
  });
  afterEach(async () => {
    await world?.accounts.drain();
    await close?.();
    world = undefined;
    store = undefined;
  });
  return () => {
    if (!store) throw new Error('no world outside a test');
    world ??= buildKeyWorld(store, options());
    return world;
  };
}

function buildKeyWorld(store: UserStore, options: Partial<AccountOptions>): KeyWorld {
  const h = makeHarness({ store, options: { hashing: CHEAP_HASHING, ...options } });
  const { accounts } = h;
  const world: KeyWorld = {
    ...h,
    async role(name, permissions) {
      await accounts.access.createRole(name);
      for (const permission of permissions) {
        await accounts.access.createPermission(permission);
        await accounts.access.grantPermission(name, permission);
      }
    },
    async person(username, roles = []) {
      const token = await h.loginNewUser(username);
      for (const role of roles) await accounts.access.grantRole(username, role);
      return { token, id: await accounts.admin.userIdOf(username), email: `${username}@example.com` };
    },
    async events(...types) {
      return (await store.audit.list({ types, limit: 1000 })).reverse();
    },
    async administrator(username = 'root', roles = []) {
      await h.createVerifiedUser(username);
      await accounts.admin.makeAdministrator(username);
      for (const role of roles) await accounts.access.grantRole(username, role);
      const sessionToken = await accounts.login(username, STRONG_PASSWORD);
      return { kind: 'admin', user: { id: await accounts.admin.userIdOf(username) }, sessionToken };
    },
    async everythingWritten() {
      await accounts.drain();
      const audit = await store.audit.list({ limit: 10_000 });
      const outbox = await store.outbox.list({ limit: 10_000 });
      return JSON.stringify({ audit, outbox, log: h.logger.lines, mail: h.sender.sent });
    },
  };
  return world;
}
