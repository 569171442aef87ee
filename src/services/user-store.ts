import type { AccountStore } from './account-store';
import type { OutboxStore } from './outbox-store';

// The store contract, split by concern: `account-store.ts` (users, sessions, tokens, addresses, roles) and
// `outbox-store.ts` (email waiting for delivery). Gatehouse needs both from one database, so that an account change
// and the message it causes commit together.

/** The whole store Gatehouse needs: the account store and the outbox, in one database so they share transactions. */
export interface UserStore extends AccountStore, OutboxStore {}

export type {
  AccessAnswer,
  AccountStore,
  Authorisation,
  CreateUserOptions,
  CreateUserResult,
  EmailChangeMessages,
  EmailChangeRequestResult,
  EmailChangeResult,
  ExpiryCutoffs,
  GrantResult,
  NewUser,
  RoleSummary,
} from './account-store';
export type { OutboxStore } from './outbox-store';
export type {
  SessionClient,
  SessionView,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
} from './types';
export type { ClaimedMessage, NewOutboxMessage, OutboxEntry, OutboxQuery, RetryTarget } from './outbox-message';
