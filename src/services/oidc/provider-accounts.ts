import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountContext } from '../account-context';
import { anonymous } from '../audit-trail';
import { unverifiedCreatedBefore } from '../expiry-rules';
import { canonicalEmail, usernameKeyOf, USERNAME_MAX_LENGTH, type CanonicalEmail } from '../identity';
import { canSend } from '../sender-operations';
import type { StoredUser } from '../types';
import type { StoredIdentity } from './identity-records';
import type { OidcProvider } from './oidc-options';
import type { ProviderAnswer } from './provider-client';

/** What a first sign-in with an identity nobody has linked comes to. */
export type FirstSignIn =
  | { outcome: 'created'; user: StoredUser; identity: StoredIdentity }
  /** The identity was linked meanwhile (a racing first sign-in won): sign in to that account. */
  | { outcome: 'linked_meanwhile'; identity: StoredIdentity }
  /** An account holds the address: no account, no link; its owner was told. */
  | { outcome: 'link_required' };

// Tries before giving up on a free username: each retry adds fresh random characters, so a clash twice is unlikely.
const USERNAME_TRIES = 5;
const SUFFIX_CHARS = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Thrown inside a transaction to roll it back; never leaves this module. */
class RolledBack extends Error {
  constructor(readonly why: 'linked_meanwhile' | 'address_owned' | 'username') {
    super(why);
  }
}

/** The address a provider gave, canonical, or null when it gave none or one Gatehouse would refuse at registration. */
export function providerAddress(answer: ProviderAnswer): CanonicalEmail | null {
  if (answer.email === null) return null;
  try {
    return canonicalEmail(answer.email);
  } catch {
    return null;
  }
}

/** Whether the provider's address is in its allowed domains (every address is, when none are configured). */
export function domainAllowed(provider: OidcProvider, address: CanonicalEmail | null): boolean {
  if (provider.allowedEmailDomains.length === 0) return true;
  const domain = address?.emailKey.slice(address.emailKey.lastIndexOf('@') + 1);
  return domain !== undefined && provider.allowedEmailDomains.includes(domain);
}

export function newIdentity(userId: string, provider: OidcProvider, answer: ProviderAnswer, now: Date): StoredIdentity {
  return {
    id: randomUUID(),
    userId,
    provider: provider.id,
    issuer: answer.issuer,
    subject: answer.subject,
    email: answer.email,
    createdAt: now,
    lastUsedAt: now,
  };
}

/**
 * A first sign-in with an identity nobody has linked. The address decides, never silently: when any account holds it
 * (verified or not, in any case) nothing is created or linked and the owner is told (better-auth PR #9578, Auth.js
 * `allowDangerousEmailAccountLinking`, supabase/auth #209); else a new account without a password, verified only when
 * the provider says the address is (else the usual verification mail goes out), and the identity linked to it in the
 * same transaction. A racing first sign-in of the same identity loses on the identities' unique key: its account is
 * rolled back with it, and it signs in to the winner's.
 */
export async function firstSignIn(
  core: AccountContext,
  provider: OidcProvider,
  answer: ProviderAnswer,
  address: CanonicalEmail,
): Promise<FirstSignIn> {
  const now = core.clock.now();
  const unverifiedAfter = unverifiedCreatedBefore(now, core.options.unverifiedRegistrationTtlMs);
  if (await core.store.oidc.addressHeld(address.emailKey, unverifiedAfter)) return addressTaken(core, answer, address);
  for (let attempt = 0; attempt < USERNAME_TRIES; attempt++) {
    try {
      return await createWithIdentity(core, provider, answer, address, usernameFor(address, attempt));
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      if (error.why === 'address_owned') return addressTaken(core, answer, address);
      if (error.why === 'linked_meanwhile') {
        const identity = await core.store.oidc.find(answer.issuer, answer.subject);
        if (identity) return { outcome: 'linked_meanwhile', identity };
        throw new Error('An identity reported linked was not found', { cause: error });
      }
    }
  }
  throw new Error('No free username was found for a provider account');
}

async function createWithIdentity(
  core: AccountContext,
  provider: OidcProvider,
  answer: ProviderAnswer,
  address: CanonicalEmail,
  username: string,
): Promise<FirstSignIn> {
  const now = core.clock.now();
  const id = randomUUID();
  const verificationToken = core.tokens.generate();
  const verification = core.tokenRow(verificationToken, { id, createdAt: now }, 'verify_email', now);
  const user = { id, username, usernameKey: usernameKeyOf(username), ...address, passwordHash: null, createdAt: now };
  const identity = newIdentity(id, provider, answer, now);
  const expiredBefore = unverifiedCreatedBefore(now, core.options.unverifiedRegistrationTtlMs);
  const link = answer.emailVerified
    ? undefined
    : core.messages.link('verification', now, verificationToken, verification.expiresAt);
  const created = await core.store.transaction(async (tx) => {
    const stored = await tx.users.create(user, verification, expiredBefore);
    if (!stored.ok) throw new RolledBack('username');
    if (stored.owner) throw new RolledBack('address_owned');
    let account = stored.user;
    if (answer.emailVerified) {
      const marked = await tx.users.markVerified(id, now);
      if (marked === 'address_owned') throw new RolledBack('address_owned');
      account = (await tx.users.findById(id)) ?? account;
    } else if (link) {
      await tx.outbox.add(link, account);
    }
    const linked = await tx.oidc.link(identity);
    if (linked === 'duplicate') throw new RolledBack('linked_meanwhile');
    if (linked === 'gone') throw new Error('A user created in this transaction was gone');
    await tx.audit.add(
      core.audit.event('oidc_account_created', 'success', anonymous(id), {
        provider: provider.id,
        verified: answer.emailVerified,
      }),
    );
    return account;
  });
  core.logger.info(
    { event: 'oidc_account_created', outcome: 'success', userId: id, provider: provider.id },
    'account created by a provider sign-in',
  );
  core.delivery?.nudge();
  return { outcome: 'created', user: created, identity };
}

/**
 * The address is held: by another account (link required), or by the account a racing first sign-in of this same
 * identity has just made, which this sign-in then signs in to.
 */
async function addressTaken(
  core: AccountContext,
  answer: ProviderAnswer,
  address: CanonicalEmail,
): Promise<FirstSignIn> {
  const identity = await core.store.oidc.find(answer.issuer, answer.subject);
  if (identity) return { outcome: 'linked_meanwhile', identity };
  await tellOwner(core, address);
  return { outcome: 'link_required' };
}

/** The owner of the address learns that someone signed in at a provider with it: the verified owner, else the newest claim. */
async function tellOwner(core: AccountContext, address: CanonicalEmail): Promise<void> {
  const now = core.clock.now();
  const owner =
    (await core.store.users.findVerifiedByEmailKey(address.emailKey)) ??
    (
      await core.store.users.findUnverifiedByEmailKey(
        address.emailKey,
        unverifiedCreatedBefore(now, core.options.unverifiedRegistrationTtlMs),
        1,
      )
    )[0];
  const audit = core.audit.event('oidc_link_required', 'refused', anonymous(owner?.id ?? null));
  const notice =
    owner && canSend(core.sender, 'oidcLinkRequired') && (await core.mayMail('register.email', address.emailKey))
      ? core.messages.notice('oidcLinkRequired', now)
      : undefined;
  await core.store.transaction(async (tx) => {
    if (notice && owner) await tx.outbox.add(notice, owner);
    await tx.audit.add(audit);
  });
  core.logger.info({ event: 'oidc_link_required', outcome: 'refused', userId: owner?.id ?? null }, 'link required');
  core.delivery?.nudge();
}

/**
 * A username for a new account: the address's local part as far as usernames allow it, then random characters on a
 * retry (the address itself is not the username: usernames are public, addresses are not).
 */
function usernameFor(address: CanonicalEmail, attempt: number): string {
  const local = address.email.slice(0, address.email.indexOf('@'));
  let base = local.replace(/[^A-Za-z0-9_.-]/g, '').replace(/^[^A-Za-z0-9]+/, '');
  if (base.length < 3) base = `user${base}`;
  base = base.slice(0, USERNAME_MAX_LENGTH - 7);
  if (attempt === 0) return base;
  const suffix = [...randomBytes(6)].map((byte) => SUFFIX_CHARS[byte % SUFFIX_CHARS.length]).join('');
  return `${base}-${suffix}`;
}
