// The public pieces of the stores. The conformance suite is deliberately not here: it declares mocha tests, so it is
// imported from `gatehouse/testing` by test code only.
export type {
  AccountStore,
  OutboxStore,
  AccessAnswer,
  CreateUserResult,
  GrantResult,
  NewUser,
  RoleSummary,
  SecondFactorEnabling,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserStore,
} from '../services/user-store';
export { MemoryUserStore } from './memory-user-store';
export { StoreUnavailableError, isStoreUnavailable } from '../errors/store-unavailable-error';
// The SQL stores have entries of their own, so that only the driver a host uses is loaded: `gatehouse/sqlite` and
// `gatehouse/postgres`.
