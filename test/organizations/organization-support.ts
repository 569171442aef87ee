import type { AccountOptions } from '../../src/services/account-options';
import type { AdminActor } from '../../src/services/admin-views';
import type { AuditEvent } from '../../src/services/audit-event';
import type { UserStore } from '../../src/services/user-store';
import { makeHarness, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { CHEAP_HASHING } from '../support/fixtures';
import type { TestStoreKind } from '../support/test-stores';
import { requireService } from '../support/services';

export interface OrgWorld extends Harness {
  /** A verified user, signed in: its session token and id. */
  person(username: string, email?: string): Promise<{ token: string; id: string; email: string }>;
  /** The raw token of the newest invitation mailed to the address. */
  invitationToken(email: string): Promise<string>;
  /** Every audit event of these types, oldest first. */
  events(...types: AuditEvent['type'][]): Promise<AuditEvent[]>;
  /** An administrator (the gatehouse-admin role), signed in recently. */
  administrator(username?: string): Promise<AdminActor>;
}

/**
 * Opens a fresh store of `kind` before each test and builds a harness on it (manual clock, recording sender, cheap
 * hashing); the function returned gives the test's world, built on its first call with `options()` as they are then.
 */
export function freshWorld(kind: TestStoreKind, options: () => Partial<AccountOptions> = () => ({})): () => OrgWorld {
  let store: UserStore | undefined;
  let world: OrgWorld | undefined;
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
  // Built on first use, so that a test may set its options first.
  return () => {
    if (!store) throw new Error('no world outside a test');
    world ??= buildWorld(store, options());
    return world;
  };
}

export function buildWorld(store: UserStore, options: Partial<AccountOptions> = {}): OrgWorld {
  const h = makeHarness({ store, options: { hashing: CHEAP_HASHING, ...options } });
  const world: OrgWorld = {
    ...h,
    async person(username, email = `${username}@example.com`) {
      const token = await h.loginNewUser(username, email);
      const id = await h.accounts.admin.userIdOf(username);
      return { token, id, email };
    },
    async invitationToken(email) {
      await h.accounts.drain();
      const message = h.sender.of('organizationInvitation', email).at(-1);
      if (!message?.token) throw new Error(`no invitation was mailed to ${email}`);
      return message.token;
    },
    async events(...types) {
      const rows = await store.audit.list({ types, limit: 1000 });
      return rows.reverse();
    },
    async administrator(username = 'root') {
      await h.createVerifiedUser(username);
      await h.accounts.admin.makeAdministrator(username);
      const sessionToken = await h.accounts.login(username, STRONG_PASSWORD);
      return { kind: 'admin', user: { id: await h.accounts.admin.userIdOf(username) }, sessionToken };
    },
  };
  return world;
}
