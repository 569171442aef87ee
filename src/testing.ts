/**
 * `gatehouse/testing`: what a host's tests need. The conformance suite that a store of your own must pass (it
 * declares mocha tests, so import it from test code only), the in-memory store, and a clock moved by hand.
 *
 * @example
 * import { describeUserStoreConformance } from 'gatehouse/testing';
 * describeUserStoreConformance('MyStore', async () => MyStore.open(testUrl), async (store) => dropDatabase(store));
 */
export {
  describeAccountStoreConformance,
  describeOutboxStoreConformance,
  describeUserStoreConformance,
} from './stores/conformance';
export { MemoryUserStore } from './stores/memory-user-store';
export { ManualClock } from './services/manual-clock';
