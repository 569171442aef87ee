import { randomUUID } from 'node:crypto';
import type { AccountContext } from './account-context';
import type { AuditEvent } from './audit-event';
import { provedBy } from './credential-kinds';
import { sessionExpiresAt } from './expiry-rules';
import { recordedClient } from './session-views';
import type { AuthMethod, SessionClient, StoredSession } from './types';
import type { TransactionOptions } from './user-store';

// The one way a session comes to be, whatever proved the person: a password, a password and a code, and later a
// passkey or a provider. Each sign-in method decides what was proved; how a session is made, bound to the credential
// state and recorded is decided here only.

/** A password alone (RFC 8176 `pwd`). */
export const PASSWORD_ONLY = provedBy('password');
/** A password, then a code of the authenticator app. */
export const PASSWORD_AND_TOTP = provedBy('password', 'totp');

/**
 * The credential a login challenge's first step proved, by the method it recorded (`StoredLoginChallenge.firstFactor`):
 * a password, or an identity at a provider.
 */
export function firstFactorKind(firstFactor: 'pwd' | 'fed'): 'password' | 'oidc' {
  return firstFactor === 'fed' ? 'oidc' : 'password';
}

/** What a sign-in proved, for the session it earns. */
export interface SessionGrant {
  userId: string;
  /** How the person was authenticated, now. */
  methods: readonly AuthMethod[];
  /** The user's `credentialEpoch` under which the credentials were checked: the session is issued under it. */
  credentialEpoch: number;
  /** Where the sign-in came from, recorded on the session for its owner's list. */
  client?: SessionClient;
  /** The sign-in's audit event, written with the session. */
  audit: AuditEvent;
}

/** A commit that need not wait for the disk: a crash can only make the person sign in again. */
const UNFLUSHED: TransactionOptions = { durable: false };

/**
 * Issues a session: a new token, its row and the grant's audit event in one transaction, conditional on the user
 * being still enabled at `credentialEpoch` (a reset, change or deletion that committed while the credentials were
 * being checked wins). The raw token, returned once, or null when nothing was written.
 */
export async function issueSession(
  core: Pick<AccountContext, 'store' | 'tokens' | 'clock' | 'options'>,
  grant: SessionGrant,
): Promise<string | null> {
  const token = core.tokens.generate();
  const now = core.clock.now();
  const session: StoredSession = {
    tokenHash: core.tokens.hash(token),
    id: randomUUID(),
    userId: grant.userId,
    createdAt: now,
    expiresAt: sessionExpiresAt(now, core.options),
    lastSeenAt: now,
    authenticatedAt: now,
    ...recordedClient(grant.client),
    methods: grant.methods,
    credentialEpoch: grant.credentialEpoch,
  };
  const issued = await core.store.transaction(async (tx) => {
    if (!(await tx.sessions.create(session))) return false;
    await tx.audit.add(grant.audit);
    return true;
  }, UNFLUSHED);
  return issued ? token : null;
}
