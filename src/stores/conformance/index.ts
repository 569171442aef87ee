import type { UserStore } from '../../services/user-store';
import { describeAccountStoreAreas } from './account';
import { describeOutboxStoreAreas } from './outbox';
import { ConformanceSuite, describe } from './support';

/**
 * Declares a mocha `describe` block that checks a `UserStore` against every contract of the interface, races
 * included: the account store's (`account/`, a file per area) and the outbox store's (`outbox/`). Run it once per
 * implementation, from a mocha test file:
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

/** The account store's contract alone (users, sessions, tokens, addresses, roles); see `describeUserStoreConformance`. */
export function describeAccountStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`AccountStore conformance: ${name}`, () =>
    describeAccountStoreAreas(new ConformanceSuite(makeStore, cleanup)));
}

/**
 * The outbox store's contract alone. Its messages are addressed to users, so the store under test creates users as
 * an account store does.
 */
export function describeOutboxStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`OutboxStore conformance: ${name}`, () =>
    describeOutboxStoreAreas(new ConformanceSuite(makeStore, cleanup)));
}
