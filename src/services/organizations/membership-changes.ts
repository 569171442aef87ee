import type { AccountContext } from '../account-context';
import { isRecordId } from '../record-id';
import { logChange, lockedAccess, memberAccess, memberEvent, refused } from './organization-access';
import { memberNotFound, organizationPermissionDenied, roleNotAssignable } from './organization-errors';
import { OWNER_ROLE } from './organization-options';
import type { MemberRecord } from './organization-records';
import type { MemberView } from './organization-views';
import { checkAssignable, checkMayTouch, keepAnOwner, roleAfterTransfer, templateRole } from './role-rules';

const READ = 'gatehouse.members.read';
const MANAGE = 'gatehouse.members.manage';

/** The roster as a member sees it: addresses only for holders of `gatehouse.members.manage`. */
export function memberView(member: MemberRecord, withEmail: boolean): MemberView {
  return {
    userId: member.userId,
    username: member.username,
    ...(withEmail ? { email: member.email } : {}),
    role: member.role,
    joinedAt: member.createdAt,
  };
}

export async function listMembers(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
): Promise<MemberView[]> {
  const access = await memberAccess(core, sessionToken, organizationId, READ);
  const withEmail = access.permissions.has(MANAGE);
  return (await core.store.organizations.listMembers(organizationId)).map((member) => memberView(member, withEmail));
}

/**
 * `gatehouse.members.manage`: another member's new role, assignable by the caller (`checkAssignable`), on a member the
 * caller may touch (`checkMayTouch`); never the caller's own (`role_not_assignable`); the last owner is never demoted.
 */
export async function changeRole(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  userId: string,
  rawRole: string,
): Promise<MemberView> {
  const access = await memberAccess(core, sessionToken, organizationId, MANAGE);
  const template = access.settings.template;
  if (!isRecordId(userId)) throw memberNotFound();
  if (userId === access.user.id) throw roleNotAssignable('Nobody changes their own role');
  const role = templateRole(template, rawRole);
  const audit = memberEvent(core, 'organization_member_role_changed', access.user.id, userId, organizationId, { role });
  const { member, before } = await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access, MANAGE);
    const target = await tx.organizations.membership(organizationId, userId);
    if (!target) throw memberNotFound();
    checkMayTouch(template, locked.membership.role, target.role);
    checkAssignable(template, locked.membership.role, role);
    if (target.role !== role) {
      await keepAnOwner(tx.organizations, organizationId, target.role);
      await tx.organizations.setRole(organizationId, userId, role, audit.at);
      await tx.audit.add({ ...audit, details: { ...audit.details, previous_role: target.role } });
    }
    const member = (await tx.organizations.listMembers(organizationId)).find((row) => row.userId === userId);
    if (!member) throw memberNotFound();
    return { member, before: target.role };
  });
  if (before !== role) logChange(core, audit, 'organization role changed');
  return memberView(member, true);
}

/**
 * `gatehouse.members.manage`: removes another member the caller may touch (owners only by owners); the caller's own
 * id is leaving. The last owner is never removed.
 */
export async function removeMember(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  userId: string,
): Promise<void> {
  const access = await memberAccess(core, sessionToken, organizationId);
  if (userId === access.user.id) return leaveOrganization(core, sessionToken, organizationId);
  if (!access.permissions.has(MANAGE)) refused(core, access.user.id, organizationId, MANAGE);
  if (!isRecordId(userId)) throw memberNotFound();
  const template = access.settings.template;
  const audit = memberEvent(core, 'organization_member_removed', access.user.id, userId, organizationId);
  await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access, MANAGE);
    const target = await tx.organizations.membership(organizationId, userId);
    if (!target) throw memberNotFound();
    checkMayTouch(template, locked.membership.role, target.role);
    await keepAnOwner(tx.organizations, organizationId, target.role);
    await tx.organizations.removeMember(organizationId, userId);
    await tx.audit.add({ ...audit, details: { ...audit.details, role: target.role } });
  });
  logChange(core, audit, 'organization member removed');
}

/** Any member but the last owner. */
export async function leaveOrganization(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
): Promise<void> {
  const access = await memberAccess(core, sessionToken, organizationId);
  const audit = memberEvent(core, 'organization_member_left', access.user.id, access.user.id, organizationId);
  await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access);
    await keepAnOwner(tx.organizations, organizationId, locked.membership.role);
    await tx.organizations.removeMember(organizationId, access.user.id);
    await tx.audit.add({ ...audit, details: { ...audit.details, role: locked.membership.role } });
  });
  logChange(core, audit, 'organization left');
}

/**
 * By an owner with a recent session: the member becomes `owner` and the caller steps down to `roleAfterTransfer`
 * (`admin` by default), both in one transaction under the organization's lock.
 */
export async function transferOwnership(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  userId: string,
): Promise<void> {
  const access = await memberAccess(core, sessionToken, organizationId);
  if (access.membership.role !== OWNER_ROLE) throw organizationPermissionDenied();
  core.requireRecent(access.live);
  if (!isRecordId(userId)) throw memberNotFound();
  if (userId === access.user.id) throw roleNotAssignable('Name another member as the new owner');
  const stepDown = roleAfterTransfer(access.settings.template);
  const audit = memberEvent(core, 'organization_ownership_transferred', access.user.id, userId, organizationId, {
    previous_owner_role: stepDown,
  });
  await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access);
    if (locked.membership.role !== OWNER_ROLE) throw organizationPermissionDenied();
    const target = await tx.organizations.membership(organizationId, userId);
    if (!target) throw memberNotFound();
    await tx.organizations.setRole(organizationId, userId, OWNER_ROLE, audit.at);
    await tx.organizations.setRole(organizationId, access.user.id, stepDown, audit.at);
    await tx.audit.add(audit);
  });
  logChange(core, audit, 'organization ownership transferred');
}
