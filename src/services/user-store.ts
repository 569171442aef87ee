import type { AccountStore } from './account-store';
import type { AdminStore } from './admin-store';
import type { OutboxStore } from './outbox-store';

// The store contract, split by concern: `account-store.ts` (users, sessions, tokens, addresses, roles),
// `outbox-store.ts` (email waiting for delivery) and `admin-store.ts` (administration and the audit trail). Gatehouse needs both from one database, so that an account change
// and the message it causes commit together.

/** The whole store Gatehouse needs: the account store and the outbox, in one database so they share transactions. */
export interface UserStore extends AccountStore, OutboxStore, AdminStore {}

export type {
  AccessAnswer,
  AccessQuery,
  AccessChangeRefusal,
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
  RevokeRoleResult,
  RoleSummary,
  SecondFactorEnabling,
} from './account-store';
export type {
  AdminStore,
  MarkVerifiedResult,
  ProtectedChangeResult,
  UserCursor,
  UserDetails,
  UserListQuery,
} from './admin-store';
export type {
  AuditActorType,
  AuditCursor,
  AuditDetails,
  AuditEvent,
  AuditEventType,
  AuditQuery,
  NewAuditEvent,
} from './audit-event';
export type { OutboxStore } from './outbox-store';
export type {
  SessionCheck,
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
