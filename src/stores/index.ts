// The public pieces of the stores. The conformance suite is deliberately not here: it declares mocha tests, so it is
// imported from `gatehouse/testing` by test code only.
// Every type the contract names is here, so that a host implementing a store of its own can name each one
// (test/architecture/public-types.test.ts checks it).
export type * from '../services/user-store';
export { AUDIT_EVENT_TYPES } from '../services/audit-event';
// The scope of every grant a host's store keeps today (`GrantScope`).
export { GLOBAL_SCOPE } from '../services/store/access-records';
export { MemoryUserStore } from './memory-user-store';
export { wrapStore, type StoreWrapper, type StoreWrappers } from '../services/store/wrap-store';
export { StoreUnavailableError, isStoreUnavailable } from '../errors/store-unavailable-error';
// The SQL stores have entries of their own, so that only the driver a host uses is loaded: `gatehouse/sqlite` and
// `gatehouse/postgres`.
