import type { UserStore } from '../../services/user-store';
import { describeAccountStoreAreas } from './account';
import { describeOutboxStoreAreas } from './outbox';
import { ConformanceSuite, describe } from './support';

/**
 * Declares a mocha `describe` block that checks a `UserStore` against every contract of the interface, races
 * included: the unit of work (`store.transaction`, `wrapStore`) and the aggregates of the account (`account/`, a file
 * per area), and the outbox (`outbox/`). Each area writes as the core does, through `store.transaction`, composing a
 * change with the messages and events it causes, and reads through the read sides (`store.users`...). Run it once
 * per implementation, from a mocha test file:
 *
 * @example
 * import { describeUserStoreConformance } from 'gatehouse/testing';
 * describeUserStoreConformance('MyStore', async () => MyStore.open(testUrl), async (store) => dropDatabase(store));
 *
 * @param makeStore Returns a fresh, empty, ready store; called before every test.
 * @param cleanup Called after every test, once the suite has closed the store (remove files, drop databases).
 *
 * Uses only mocha's globals and `node:assert`, so it needs no test dependency beyond mocha.
 */
export function describeUserStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`UserStore conformance: ${name}`, () => {
    const suite = new ConformanceSuite(makeStore, cleanup);
    describeAccountStoreAreas(suite);
    describeOutboxStoreAreas(suite);
  });
}

/**
 * The account's areas alone (the unit of work, users, sessions, tokens, addresses, roles, the audit trail); see
 * `describeUserStoreConformance`.
 */
export function describeAccountStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`AccountStore conformance: ${name}`, () =>
    describeAccountStoreAreas(new ConformanceSuite(makeStore, cleanup)));
}

/**
 * The outbox's areas alone: queueing with account changes in one transaction, claims under a lease, outcomes,
 * listing, retries. Its messages are addressed to users, so the store under test creates users too.
 */
export function describeOutboxStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`OutboxStore conformance: ${name}`, () =>
    describeOutboxStoreAreas(new ConformanceSuite(makeStore, cleanup)));
}
