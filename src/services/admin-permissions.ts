/**
 * Gatehouse's own permissions: every admin action needs one, checked by the core whoever calls it (the admin
 * routes, a host's code). They are ordinary permissions, granted through roles like any other; `ADMIN_ROLE` carries
 * them all, and `gatehouse admin grant <username>` creates it (with its permissions) and grants it.
 */
export const ADMIN_PERMISSIONS = {
  /** List and read accounts: roles, permissions, verification, second factor on or off, sessions, last sign-in. */
  readUsers: 'gatehouse.users.read',
  /** Disable and enable accounts, mark an address verified, resend a verification link. */
  manageUsers: 'gatehouse.users.manage',
  /** End an account's sessions. */
  endSessions: 'gatehouse.sessions.end',
  /** Delete an account. */
  deleteUsers: 'gatehouse.users.delete',
  /**
   * Grant and revoke roles; create roles and permissions; grant and revoke a role's permissions. Never a permission
   * the administrator does not hold, never its own access (`Administration`, decided by the store's grant).
   */
  manageRoles: 'gatehouse.roles.manage',
  /** Read the audit trail. */
  readAudit: 'gatehouse.audit.read',
  /** List organizations, read one with its members (and their addresses) and invitations, and a user's organizations. */
  readOrganizations: 'gatehouse.organizations.read',
  /**
   * Name an organization's owner; create organizations when `organizations.creation` is 'administrators'.
   */
  manageOrganizations: 'gatehouse.organizations.manage',
  /**
   * List and revoke any account's API keys; create service accounts, and create and revoke their keys (granting a
   * service account roles needs `gatehouse.roles.manage` too, under its rules).
   */
  manageApiKeys: 'gatehouse.api_keys.manage',
} as const;

export type AdminPermission = (typeof ADMIN_PERMISSIONS)[keyof typeof ADMIN_PERMISSIONS];

export const ALL_ADMIN_PERMISSIONS: readonly AdminPermission[] = Object.values(ADMIN_PERMISSIONS);

/**
 * The administrator role. The last enabled user holding it cannot lose it, be disabled or be deleted through the
 * admin routes, and its Gatehouse permissions cannot be revoked from it: administrators cannot lock everyone out.
 */
export const ADMIN_ROLE = 'gatehouse-admin';
