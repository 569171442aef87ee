import { ColumnType } from 'kysely';

/**
 * An instant as integer milliseconds since the Unix epoch, in a `bigint` column: one portable type that SQLite and
 * PostgreSQL both compare and index natively. Written as a JS number; read back as a number (better-sqlite3) or a
 * string (node-postgres returns int8 as text), so the row mappers convert with `Number()`.
 */
export type EpochMs = ColumnType<number | string | bigint, number, number>;

/** An instant that may be absent; optional on insert (the column has no default: null). */
export type NullableEpochMs = ColumnType<number | string | bigint | null, number | null | undefined, number | null>;

/** `verified` is an integer 0/1 everywhere: SQLite has no boolean type and better-sqlite3 cannot bind one. */
export type Flag = ColumnType<number | boolean, number, number>;

export interface UsersTable {
  id: string;
  username: string;
  username_key: string;
  email: string;
  email_key: string;
  verified: Flag;
  created_at: EpochMs;
  updated_at: EpochMs;
  /** Set while an administrator has disabled the account (see migrations/2026-11-28-administration-and-audit). */
  disabled_at: NullableEpochMs;
  /** The creation of the user's latest session; only the administrator's view of the user reads it. */
  last_sign_in_at: NullableEpochMs;
  /** The state of the user's credentials (`StoredUser.credentialEpoch`, migrations/2026-12-01-session-methods). */
  credential_epoch: ColumnType<number, number | undefined, number>;
}

/** Every column of `users`, for queries that must name them (see `requestPathQueries`). */
export const USER_COLUMNS = [
  'id',
  'username',
  'username_key',
  'email',
  'email_key',
  'verified',
  'created_at',
  'updated_at',
  'disabled_at',
  'last_sign_in_at',
  'credential_epoch',
] as const satisfies readonly (keyof UsersTable)[];

// A column added to UsersTable and not to USER_COLUMNS fails to compile here.
const everyUserColumn: Exclude<keyof UsersTable, (typeof USER_COLUMNS)[number]> extends never ? true : never = true;
void everyUserColumn;

export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: EpochMs;
  expires_at: EpochMs;
  last_seen_at: EpochMs;
  /** The public name of the session (unique). */
  id: string;
  authenticated_at: EpochMs;
  ip: string | null;
  user_agent: string | null;
  /**
   * How the session was authenticated: RFC 8176 `amr` values separated by single spaces, e.g. `pwd otp mfa`
   * (`StoredSession.methods`, migrations/2026-12-01-session-methods).
   */
  amr: string;
  /** The user's `credential_epoch` the session was issued under: it counts only while they are equal. */
  credential_epoch: ColumnType<number, number | undefined, number>;
}

export interface TokensTable {
  token_hash: string;
  user_id: string;
  /** `verify_email` or `reset_password` (a CHECK constraint keeps it so). */
  purpose: string;
  expires_at: EpochMs;
}

export interface RolesTable {
  name: string;
}

export interface PermissionsTable {
  name: string;
}

export interface RolePermissionsTable {
  role: string;
  permission: string;
}

/** A role granted to a user in a scope (`GrantScope`; see migrations/2026-11-29-scoped-grants). */
export interface UserRolesTable {
  user_id: string;
  role: string;
  scope: string;
}

/** A message waiting for delivery or kept for a while after it (see migrations/2026-11-24-outbox). */
export interface OutboxTable {
  id: string;
  /** One of `OUTBOX_KINDS` when written by this release (checked in code); a later release's may be another. */
  kind: string;
  user_id: string;
  username: string;
  email: string;
  sealed_token: string | null;
  /** `pending`, `sent` or `failed`. */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: EpochMs;
  give_up_at: EpochMs;
  claim_id: string | null;
  last_error: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
  sent_at: ColumnType<number | string | bigint | null, number | null, number | null>;
}

/** Every column of the outbox, named: for the claim's RETURNING, a prepared statement on PostgreSQL. */
export const OUTBOX_COLUMNS = [
  'id',
  'kind',
  'user_id',
  'username',
  'email',
  'sealed_token',
  'status',
  'attempts',
  'next_attempt_at',
  'give_up_at',
  'claim_id',
  'last_error',
  'created_at',
  'updated_at',
  'sent_at',
] as const satisfies readonly (keyof OutboxTable)[];

const everyOutboxColumn: Exclude<keyof OutboxTable, (typeof OUTBOX_COLUMNS)[number]> extends never ? true : never =
  true;
void everyOutboxColumn;

/** A change of address waiting for its link (see migrations/2026-11-26-sessions-and-email-changes). */
export interface EmailChangesTable {
  token_hash: string;
  /** Unique: one pending change per user. */
  user_id: string;
  new_email: string;
  new_email_key: string;
  created_at: EpochMs;
  expires_at: EpochMs;
  end_other_sessions: Flag;
  keep_session_id: string | null;
}

/** A user's second factor, enabled or waiting for its first code (see migrations/2026-11-27-second-factor). */
/**
 * A credential of a user, of a kind checked in code (`CREDENTIAL_KINDS`; see migrations/2026-12-02-credentials): its
 * `secret` is the argon2 hash of a password, the sealed TOTP secret or the keyed hash of a recovery code.
 */
export interface CredentialsTable {
  id: string;
  user_id: string;
  kind: string;
  secret: string;
  /** 0 for a TOTP factor waiting for its first code; 1 otherwise. */
  enabled: ColumnType<number | boolean, number | undefined, number>;
  enabled_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** A time step (30-second counter since the epoch), not an instant: a bigint read back as a number or a string. */
  last_used_step: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  created_at: EpochMs;
  last_used_at: NullableEpochMs;
  /**
   * A passkey's WebAuthn credential id, an identity's `${issuer} ${subject}`: unique per kind
   * (migrations/2026-12-03-passkeys); null for other kinds.
   */
  identifier: ColumnType<string | null, string | null | undefined, string | null>;
  /** A passkey's signature counter last accepted. */
  counter: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** A passkey's name, as its owner gave it; an identity's provider id. */
  label: ColumnType<string | null, string | null | undefined, string | null>;
  /** What a passkey's registration reported of it, an identity's address, as JSON (see `sql-*-records.ts`). */
  details: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The columns of a TOTP credential that login reads, named: a prepared statement on PostgreSQL. */
export const SECOND_FACTOR_COLUMNS = [
  'user_id',
  'secret',
  'enabled',
  'created_at',
  'enabled_at',
  'last_used_step',
] as const satisfies readonly (keyof CredentialsTable)[];

/** The challenge a right password gives an account with a second factor. */
export interface LoginChallengesTable {
  token_hash: string;
  user_id: string;
  /** The user's `credential_epoch` when the password was checked (migrations/2026-12-01-session-methods). */
  credential_epoch: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
  expires_at: EpochMs;
  ip: string | null;
  user_agent: string | null;
  /** What the first step proved: `pwd` a password, `fed` a provider's identity (migrations/2026-12-04-oidc). */
  first_factor: ColumnType<string, string | undefined, string>;
}

/** A passkey ceremony's challenge, by its keyed hash (migrations/2026-12-03-passkeys). */
export interface PasskeyChallengesTable {
  challenge_hash: string;
  /** A `PasskeyCeremony`, checked in code. */
  ceremony: string;
  user_id: string | null;
  session_id: string | null;
  login_challenge_hash: string | null;
  user_handle: string | null;
  created_at: EpochMs;
  expires_at: EpochMs;
}

/** A started OpenID flow, by the keyed hash of its state (migrations/2026-12-04-oidc). */
export interface OidcFlowsTable {
  state_hash: string;
  provider: string;
  browser_hash: string;
  /** The PKCE verifier and nonce, sealed (`TokenSealer`). */
  sealed: string;
  /** An `OidcFlowIntent`, checked in code. */
  intent: string;
  user_id: string | null;
  session_id: string | null;
  return_to: string;
  created_at: EpochMs;
  expires_at: EpochMs;
}

/** A callback's decision, by the keyed hash of the one-time code it handed back (migrations/2026-12-04-oidc). */
export interface OidcHandoffsTable {
  code_hash: string;
  outcome: string;
  user_id: string | null;
  identity_id: string | null;
  /** The session's methods, as a JSON array. */
  methods: string;
  skip_second_factor: Flag;
  ip: string | null;
  user_agent: string | null;
  created_at: EpochMs;
  expires_at: EpochMs;
}

/** An organization (migrations/2026-12-05-organizations). */
export interface OrganizationsTable {
  /** A uuid. */
  id: string;
  name: string;
  /** Its creator; null once that account is gone (ON DELETE SET NULL, and explicitly where foreign keys are off). */
  created_by: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

/** A user's membership of an organization: one role of the template (migrations/2026-12-05-organizations). */
export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  role: string;
  created_at: EpochMs;
  updated_at: EpochMs;
}

/** A pending invitation, by its id; its token only as a keyed hash (migrations/2026-12-05-organizations). */
export interface OrganizationInvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  email_key: string;
  role: string;
  token_hash: string;
  /** The inviter; null once that account is gone. */
  invited_by: string | null;
  created_at: EpochMs;
  expires_at: EpochMs;
}

/** An API key, by its id; the key only as a keyed hash (migrations/2026-12-06-api-keys). */
export interface ApiKeysTable {
  id: string;
  /** HMAC-SHA256 of the key under the secret key, base64url (unique): the request path's lookup. */
  key_hash: string;
  user_id: string;
  /** Unique per owner. */
  name: string;
  last_four: string;
  /** The permission names the key may use: a JSON array of strings, sorted. */
  scopes: string;
  created_at: EpochMs;
  expires_at: EpochMs;
  last_used_at: NullableEpochMs;
  last_used_ip: string | null;
  /** Its creator; null once that account is gone (ON DELETE SET NULL, and explicitly where foreign keys are off). */
  created_by: string | null;
}

/** The mark of a service account, by its user (migrations/2026-12-06-api-keys). */
export interface ServiceAccountsTable {
  user_id: string;
  created_at: EpochMs;
  /** The administrator who created it (null: the operator's CLI, or that account is gone). */
  created_by: string | null;
}

/** One security event; append-only (see migrations/2026-11-28-administration-and-audit). */
export interface AuditEventsTable {
  id: string;
  at: EpochMs;
  type: string;
  outcome: string;
  /** `user`, `admin`, `operator` or `anonymous` (a CHECK constraint keeps it so). */
  actor_type: string;
  actor_id: string | null;
  subject_id: string | null;
  ip: string | null;
  request_id: string | null;
  /** The details as a JSON object, or null. */
  details: string | null;
}

/** The tables of the SQL store, as created by `migrations/`. Column names are snake_case, as in DESIGN.md. */
export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  tokens: TokensTable;
  roles: RolesTable;
  permissions: PermissionsTable;
  role_permissions: RolePermissionsTable;
  user_roles: UserRolesTable;
  outbox: OutboxTable;
  email_changes: EmailChangesTable;
  credentials: CredentialsTable;
  login_challenges: LoginChallengesTable;
  passkey_challenges: PasskeyChallengesTable;
  oidc_flows: OidcFlowsTable;
  oidc_handoffs: OidcHandoffsTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invitations: OrganizationInvitationsTable;
  api_keys: ApiKeysTable;
  service_accounts: ServiceAccountsTable;
  audit_events: AuditEventsTable;
}
