import { randomUUID } from 'node:crypto';
import { invalidSession } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { self } from '../audit-trail';
import { canonicalEmail } from '../identity';
import { isRecordId } from '../record-id';
import { canSend } from '../sender-operations';
import { isRawToken } from '../token-hasher';
import type { StoredUser } from '../types';
import type { UserStoreTransaction } from '../user-store';
import {
  logChange,
  lockedAccess,
  memberAccess,
  memberEvent,
  organizationView,
  requireSettings,
} from './organization-access';
import {
  alreadyMember,
  invalidInvitationToken,
  invitationAddressMismatch,
  invitationLimitReached,
  invitationNotFound,
  memberLimitReached,
  organizationLimitReached,
} from './organization-errors';
import type { StoredInvitation } from './organization-records';
import type { InvitationPreview, InvitationView, OrganizationView } from './organization-views';
import { checkAssignable, templateRole } from './role-rules';

const INVITE = 'gatehouse.members.invite';
const MANAGE = 'gatehouse.members.manage';

/**
 * `gatehouse.members.invite` and an assignable role: a pending invitation of the address, replacing any earlier one of
 * the same organization and address (whose token stops working), and its link mailed to the address, in one
 * transaction. The limits are counted there, under the organization's lock; the replaced invitation does not count.
 */
export async function invite(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  input: { email: string; role: string },
): Promise<InvitationView> {
  const access = await memberAccess(core, sessionToken, organizationId, INVITE);
  const { settings } = access;
  const role = templateRole(settings.template, input?.role);
  checkAssignable(settings.template, access.membership.role, role);
  const address = canonicalEmail(typeof input?.email === 'string' ? input.email : '');
  const now = core.clock.now();
  const token = core.tokens.generate();
  const invitation: StoredInvitation = {
    id: randomUUID(),
    organizationId,
    email: address.email,
    emailKey: address.emailKey,
    role,
    tokenHash: core.tokens.hash(token),
    invitedBy: access.user.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + settings.invitationTtlMs),
  };
  const link = canSend(core.sender, 'organizationInvitation')
    ? core.messages.link('organizationInvitation', now, token, invitation.expiresAt)
    : undefined;
  const audit = memberEvent(core, 'organization_invitation_created', access.user.id, null, organizationId, {
    invitationId: invitation.id,
    role,
  });
  const replaced = await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access, INVITE);
    checkAssignable(settings.template, locked.membership.role, role);
    const owner = await tx.users.findVerifiedByEmailKey(address.emailKey);
    if (owner && (await tx.organizations.membership(organizationId, owner.id))) throw alreadyMember();
    const pending = await tx.organizations.listInvitations(organizationId, now);
    const replaced = pending.some((row) => row.emailKey === address.emailKey);
    const others = pending.length - (replaced ? 1 : 0);
    if (others >= settings.maxPendingInvitations) throw invitationLimitReached();
    if ((await tx.organizations.countMembers(organizationId)) + others >= settings.maxMembers) {
      throw memberLimitReached();
    }
    await tx.organizations.createInvitation(invitation);
    // The invitee may have no account: the message is addressed to the address, under the invitation's id.
    if (link) await tx.outbox.add(link, { id: invitation.id, username: address.email, email: address.email });
    await tx.audit.add({ ...audit, details: { ...audit.details, replaced } });
    return replaced;
  });
  logChange(core, { ...audit, details: { ...audit.details, replaced } }, 'organization invitation created');
  if (!link) warnUnsent(core, organizationId);
  core.delivery?.nudge();
  return invitationView(invitation, access.user.username);
}

/** `gatehouse.members.manage`: the pending invitations, oldest first, with their addresses. */
export async function listInvitations(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
): Promise<InvitationView[]> {
  await memberAccess(core, sessionToken, organizationId, MANAGE);
  const rows = await core.store.organizations.listInvitations(organizationId, core.clock.now());
  const names = await inviterNames(core, rows);
  return rows.map((row) => invitationViewOf(row, names));
}

/** `gatehouse.members.manage`: a new token and expiry for a pending invitation, mailed again; the old token dies. */
export async function resendInvitation(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  invitationId: string,
): Promise<InvitationView> {
  const access = await memberAccess(core, sessionToken, organizationId, MANAGE);
  if (!isRecordId(invitationId)) throw invitationNotFound();
  const now = core.clock.now();
  const token = core.tokens.generate();
  const renewal = {
    tokenHash: core.tokens.hash(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + access.settings.invitationTtlMs),
  };
  const link = canSend(core.sender, 'organizationInvitation')
    ? core.messages.link('organizationInvitation', now, token, renewal.expiresAt)
    : undefined;
  const audit = memberEvent(core, 'organization_invitation_resent', access.user.id, null, organizationId, {
    invitationId,
  });
  const renewed = await core.store.transaction(async (tx) => {
    await lockedAccess(core, tx, access, MANAGE);
    const renewed = await tx.organizations.renewInvitation(organizationId, invitationId, renewal, now);
    if (!renewed) throw invitationNotFound();
    if (link) await tx.outbox.add(link, { id: renewed.id, username: renewed.email, email: renewed.email });
    await tx.audit.add({ ...audit, details: { ...audit.details, role: renewed.role } });
    return renewed;
  });
  logChange(core, audit, 'organization invitation resent');
  if (!link) warnUnsent(core, organizationId);
  core.delivery?.nudge();
  return invitationViewOf(renewed, await inviterNames(core, [renewed]));
}

/** `gatehouse.members.manage`: the invitation goes; its token stops working. */
export async function cancelInvitation(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  invitationId: string,
): Promise<void> {
  const access = await memberAccess(core, sessionToken, organizationId, MANAGE);
  if (!isRecordId(invitationId)) throw invitationNotFound();
  const audit = memberEvent(core, 'organization_invitation_cancelled', access.user.id, null, organizationId, {
    invitationId,
  });
  await core.store.transaction(async (tx) => {
    await lockedAccess(core, tx, access, MANAGE);
    const pending = await tx.organizations.findInvitation(organizationId, invitationId, audit.at);
    if (!pending) throw invitationNotFound();
    const deleted = await tx.organizations.deleteInvitation(organizationId, invitationId);
    if (!deleted) throw invitationNotFound();
    await tx.audit.add({ ...audit, details: { ...audit.details, role: deleted.role } });
  });
  logChange(core, audit, 'organization invitation cancelled');
}

/** What the token's holder sees: organization, role, inviter, expiry; never the address. Changes nothing. */
export async function previewInvitation(core: AccountContext, token: string): Promise<InvitationPreview> {
  requireSettings(core);
  const invitation = await pendingInvitation(core, token);
  const organization = await core.store.organizations.find(invitation.organizationId);
  if (!organization) throw invalidInvitationToken();
  const { invitedBy } = invitationViewOf(invitation, await inviterNames(core, [invitation]));
  return {
    organization: { id: organization.id, name: organization.name },
    role: invitation.role,
    invitedBy,
    expiresAt: invitation.expiresAt,
  };
}

/**
 * Only the verified account owning the invited address: the invitation is read and compared first, so another
 * account's attempt leaves it pending (`invitation_address_mismatch`). Then one transaction: the user's lock, the
 * organization's, the claim (of racing accepts exactly one gets it), the limits, and the membership. A refusal inside
 * it (a limit, already a member) undoes the claim: the invitation stays.
 */
export async function acceptInvitation(
  core: AccountContext,
  sessionToken: string,
  token: string,
): Promise<OrganizationView> {
  const settings = requireSettings(core);
  const user = await core.requireSessionUser(sessionToken);
  const invitation = await claimable(core, user, token, 'organization_invitation_accepted');
  const organizationId = invitation.organizationId;
  const tokenHash = invitation.tokenHash;
  const audit = memberEvent(core, 'organization_invitation_accepted', user.id, user.id, organizationId, {
    invitationId: invitation.id,
    role: invitation.role,
  });
  const view = await core.store.transaction(async (tx) => {
    if (!(await tx.organizations.lockUser(user.id))) throw invalidSession();
    const organization = await tx.organizations.lock(organizationId);
    if (!organization) throw invalidInvitationToken();
    await checkStillOwner(tx, user, invitation);
    const now = core.clock.now();
    const claimed = await tx.organizations.consumeInvitation(tokenHash, now);
    if (!claimed) throw invalidInvitationToken();
    if (await tx.organizations.membership(organizationId, user.id)) throw alreadyMember();
    if ((await tx.organizations.countForUser(user.id)) >= settings.maxOrganizationsPerUser) {
      throw organizationLimitReached();
    }
    // The invitation held its seat (inviting counts members and pending invitations together), so joining keeps that
    // sum; only the members themselves are counted here, so that an organization over its limit (an administrator's
    // owner, a limit lowered since) admits nobody past it, and of two joins for its last seat exactly one passes.
    if ((await tx.organizations.countMembers(organizationId)) >= settings.maxMembers) throw memberLimitReached();
    const added = await tx.organizations.addMember({
      organizationId,
      userId: user.id,
      role: claimed.role,
      createdAt: now,
      updatedAt: now,
    });
    if (added === 'duplicate') throw alreadyMember();
    if (added === 'gone') throw invalidInvitationToken();
    await tx.audit.add(audit);
    return organizationView(settings, organization, claimed.role);
  });
  logChange(core, audit, 'organization invitation accepted');
  return view;
}

/** As accepting, without joining: only the invited address's verified owner declines; the invitation goes. */
export async function declineInvitation(core: AccountContext, sessionToken: string, token: string): Promise<void> {
  requireSettings(core);
  const user = await core.requireSessionUser(sessionToken);
  const invitation = await claimable(core, user, token, 'organization_invitation_declined');
  const audit = memberEvent(core, 'organization_invitation_declined', user.id, user.id, invitation.organizationId, {
    invitationId: invitation.id,
  });
  await core.store.transaction(async (tx) => {
    if (!(await tx.organizations.lockUser(user.id))) throw invalidSession();
    if (!(await tx.organizations.lock(invitation.organizationId))) throw invalidInvitationToken();
    await checkStillOwner(tx, user, invitation);
    const claimed = await tx.organizations.consumeInvitation(invitation.tokenHash, core.clock.now());
    if (!claimed) throw invalidInvitationToken();
    await tx.audit.add(audit);
  });
  logChange(core, audit, 'organization invitation declined');
}

/** The pending invitation of a raw token; `invalid_invitation_token` for anything else. */
async function pendingInvitation(core: AccountContext, token: string): Promise<StoredInvitation> {
  if (!isRawToken(token)) throw invalidInvitationToken();
  const found = await core.store.organizations.findInvitationByToken(core.tokens.hash(token), core.clock.now());
  if (!found) throw invalidInvitationToken();
  return found;
}

/**
 * The invitation of the token when `user` may claim it: a verified account whose address is the invited one. Refusals
 * are audited (with the organization's id when known) and change nothing.
 */
async function claimable(
  core: AccountContext,
  user: StoredUser,
  token: string,
  type: 'organization_invitation_accepted' | 'organization_invitation_declined',
): Promise<StoredInvitation> {
  let invitation: StoredInvitation;
  try {
    invitation = await pendingInvitation(core, token);
  } catch (error) {
    await core.audit.record(type, 'invalid_token', self(user.id));
    core.logger.info({ event: type, outcome: 'invalid_token', userId: user.id }, 'invitation refused');
    throw error;
  }
  if (!user.verified || user.emailKey !== invitation.emailKey) {
    const details = { organizationId: invitation.organizationId, invitationId: invitation.id };
    await core.audit.record(type, 'address_mismatch', self(user.id), details);
    core.logger.info({ event: type, outcome: 'address_mismatch', userId: user.id, ...details }, 'invitation refused');
    throw invitationAddressMismatch();
  }
  return invitation;
}

/** The account, read again under its lock, is still the verified owner of the invited address. */
async function checkStillOwner(
  tx: UserStoreTransaction,
  user: StoredUser,
  invitation: StoredInvitation,
): Promise<void> {
  const current = await tx.users.findById(user.id);
  if (!current || current.disabledAt !== null) throw invalidSession();
  if (!current.verified || current.emailKey !== invitation.emailKey) throw invitationAddressMismatch();
}

function invitationView(invitation: StoredInvitation, invitedBy: string | null): InvitationView {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy,
    createdAt: invitation.createdAt,
    expiresAt: invitation.expiresAt,
  };
}

/** The usernames of the inviters (an inviter whose account is gone has none). */
export async function inviterNames(
  core: AccountContext,
  invitations: readonly StoredInvitation[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(invitations.map((row) => row.invitedBy))) {
    if (id === null) continue;
    const user = await core.store.users.findById(id);
    if (user) names.set(id, user.username);
  }
  return names;
}

export function invitationViewOf(invitation: StoredInvitation, names: ReadonlyMap<string, string>): InvitationView {
  return invitationView(invitation, invitation.invitedBy === null ? null : (names.get(invitation.invitedBy) ?? null));
}

function warnUnsent(core: AccountContext, organizationId: string): void {
  core.logger.warn(
    { event: 'organization_invitation', outcome: 'not_mailed', organizationId },
    'the email sender cannot send organization invitations: the invitation was stored but not mailed',
  );
}
