import type { OrganizationRecords } from './organization-records';
import { OWNER_ROLE, permissionsOf, type OrganizationTemplate } from './organization-options';
import { lastOwner, roleNotAssignable, unknownOrganizationRole } from './organization-errors';

// Who may give which role of the template, and the rule that keeps an owner in every organization.

/** The role, when the template has it; else `account_error` (a role removed from the template cannot be given). */
export function templateRole(template: OrganizationTemplate, role: unknown): string {
  if (typeof role !== 'string' || !template.roles.has(role)) throw unknownOrganizationRole();
  return role;
}

/** Whether every permission of `role` is among `held`. */
export function within(template: OrganizationTemplate, role: string, held: ReadonlySet<string>): boolean {
  for (const permission of permissionsOf(template, role)) if (!held.has(permission)) return false;
  return true;
}

/**
 * Refuses (`role_not_assignable`) giving `role` by an actor of `actorRole`: only an owner gives `owner`, and every
 * permission of the role must be among the actor's (an invitation or a change alike).
 */
export function checkAssignable(template: OrganizationTemplate, actorRole: string, role: string): void {
  if (role === OWNER_ROLE && actorRole !== OWNER_ROLE) throw roleNotAssignable('Only an owner gives the owner role');
  if (!within(template, role, permissionsOf(template, actorRole))) {
    throw roleNotAssignable('This role has permissions your role does not have');
  }
}

/**
 * Refuses (`role_not_assignable`) touching a member of `targetRole` (changing its role, removing it) by an actor of
 * `actorRole`: only owners touch owners, and nobody touches a member whose role holds a permission the actor lacks.
 */
export function checkMayTouch(template: OrganizationTemplate, actorRole: string, targetRole: string): void {
  if (targetRole === OWNER_ROLE && actorRole !== OWNER_ROLE) {
    throw roleNotAssignable('Only an owner changes or removes an owner');
  }
  if (!within(template, targetRole, permissionsOf(template, actorRole))) {
    throw roleNotAssignable("This member's role has permissions your role does not have");
  }
}

/**
 * Refuses (`last_owner`) a change that takes a member of `role` out of `owner` (leaving, removal, demotion, deletion of
 * the account) when that member is the organization's only owner. Counted in the caller's transaction, after
 * `tx.organizations.lock`, so two owners removing each other cannot both pass.
 */
export async function keepAnOwner(tx: OrganizationRecords, organizationId: string, role: string): Promise<void> {
  if (role !== OWNER_ROLE) return;
  if ((await tx.countMembersWithRole(organizationId, OWNER_ROLE)) <= 1) throw lastOwner();
}

/**
 * The role an owner keeps after handing ownership over: `admin` when the template has it, else the template's role
 * with the most permissions (the first of them, in the template's order).
 */
export function roleAfterTransfer(template: OrganizationTemplate): string {
  if (template.roles.has('admin')) return 'admin';
  let best: string | undefined;
  let most = -1;
  for (const [role, permissions] of template.roles) {
    if (role === OWNER_ROLE) continue;
    if (permissions.size > most) {
      best = role;
      most = permissions.size;
    }
  }
  // The template always has a role below owner (checked at start).
  return best as string;
}
