import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { expectGranted, grantorOf, lastAdministrator, userNotFound } from '../access-change-results';
import { adminParties, authoriseAdmin, authoriseAdminChange } from '../admin-authorisation';
import { logApiKeysRevoked, revokeAllApiKeys } from '../api-key-revocations';
import { ADMIN_PERMISSIONS, ADMIN_ROLE, ALL_ADMIN_PERMISSIONS, type AdminPermission } from '../admin-permissions';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  OPERATOR,
  type AdminActor,
  type AdminUserSummary,
  type AdminUserView,
  type AuditEventView,
  type AuditFilters,
  type Page,
  type UserFilters,
} from '../admin-views';
import type { AuditDetails, AuditEvent, AuditEventType } from '../audit-event';
import { checkPermissionName, checkRoleName } from '../identity';
import { type CursorKey, type CursorScope, PageCursors } from '../page-cursor';
import { isRecordId } from '../record-id';
import {
  afterAccountDeletion,
  deleteAloneOrganizations,
  organizationsEndingWith,
  refusedForLastOwner,
} from '../account-deletion-rules';
import type { StoredUser } from '../types';
import type { DeleteUserResult, ProtectedChangeResult, RoleSummary, UserDetails } from '../user-store';

/** Longest prefix a user search takes: the longest address. */
const MAX_PREFIX_LENGTH = 254;

/**
 * Administration: what an administrator (or the operator at the CLI) may do to other accounts, each action checked
 * against its permission (`ADMIN_PERMISSIONS`) before anything else (so an unknown id tells a non-administrator
 * nothing) and written to the audit trail in the transaction of its change. Reached as `AccountService.admin`.
 * Users are named by id; the operator's commands find the id from a username (`userIdOf`).
 */
export class Administration {
  /** The list cursors, authenticated under the secret key (the same for every request's view of this). */
  private readonly cursors: PageCursors;

  constructor(private readonly core: AccountContext) {
    this.cursors = new PageCursors(core.tokens);
  }

  /** `gatehouse.users.read`: newest first, keyset-paginated (stable while users register). */
  async listUsers(actor: AdminActor, filters: UserFilters): Promise<Page<AdminUserSummary>> {
    await this.authorise(actor, ADMIN_PERMISSIONS.readUsers);
    const limit = pageSize(filters.limit);
    const query = {
      prefix: searchPrefix(filters.prefix),
      verified: filters.verified,
      disabled: filters.disabled,
      role: filters.role === undefined ? undefined : checkRoleName(filters.role),
      createdFrom: filters.createdFrom,
      createdBefore: filters.createdBefore,
    };
    const scope: CursorScope = {
      list: 'users',
      filters: { ...query, createdFrom: query.createdFrom?.getTime(), createdBefore: query.createdBefore?.getTime() },
    };
    const after = this.after(scope, filters.cursor);
    const rows = await this.core.store.admin.listUsers({
      ...query,
      after: after && { createdAt: after.at, id: after.id },
      limit: limit + 1,
    });
    // Reading accounts is recorded too (who looked at whose data); the filters are not, a prefix may be an address.
    await this.record(actor, 'admin.users_listed', null, { shown: Math.min(rows.length, limit) });
    return this.pageOf(scope, rows, limit, summaryOf, (user) => ({ at: user.createdAt, id: user.id }));
  }

  /** `gatehouse.users.read`; `user_not_found` for an unknown id. */
  async getUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    await this.authorise(actor, ADMIN_PERMISSIONS.readUsers);
    const view = await this.view(userId);
    await this.record(actor, 'admin.user_viewed', userId);
    return view;
  }

  /**
   * `gatehouse.users.manage`: the account cannot sign in, and its sessions, links, login challenges and API keys end
   * in the same transaction, so it is signed out on every instance at its next request and no key of it passes.
   * Idempotent. `last_administrator` when it is the last enabled holder of `ADMIN_ROLE`.
   */
  async disableUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageUsers);
    const audit = this.event(actor, 'admin.user_disabled', userId);
    const now = this.core.clock.now();
    const parties = adminParties(actor, userId);
    const { result, revoked } = await this.core.store.transaction(async (tx) => {
      const result = await tx.users.disable(userId, now, ADMIN_ROLE);
      if (result !== 'ok') return { result, revoked: [] };
      await tx.audit.add(audit);
      return { result, revoked: await revokeAllApiKeys(this.core, tx, userId, parties, 'account_disabled') };
    });
    this.expectChanged(result);
    this.log(audit, 'account disabled');
    logApiKeysRevoked(this.core, userId, parties, 'account_disabled', revoked);
    return this.view(userId);
  }

  /** `gatehouse.users.manage`: the account may sign in again (its old sessions stay ended). Idempotent. */
  async enableUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageUsers);
    const audit = this.event(actor, 'admin.user_enabled', userId);
    const now = this.core.clock.now();
    this.expectChanged(await this.core.audited(audit, (tx) => tx.users.enable(userId, now), isOk));
    this.log(audit, 'account enabled');
    return this.view(userId);
  }

  /** `gatehouse.sessions.end`: every session of the account, on every instance; returns how many ended. */
  async endSessions(actor: AdminActor, userId: string): Promise<number> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.endSessions);
    await this.requireUserById(userId);
    const audit = this.event(actor, 'admin.sessions_ended', userId);
    // Zero when the account went meanwhile (nothing is written then).
    const ended = (await this.core.endAllSessions(userId, audit)) ?? 0;
    this.log(audit, 'sessions ended by an administrator', { sessions_ended: ended });
    return ended;
  }

  /**
   * `gatehouse.users.manage`: the address becomes verified and the account its owner (other unverified
   * registrations of it end, as when a link is confirmed). Idempotent; `address_owned` when another verified
   * account owns the address.
   */
  async markVerified(actor: AdminActor, userId: string): Promise<AdminUserView> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageUsers);
    const audit = this.event(actor, 'admin.email_verified', userId);
    const now = this.core.clock.now();
    const result = await this.core.audited(
      audit,
      (tx) => tx.users.markVerified(userId, now),
      (outcome) => outcome === 'verified',
    );
    if (result === 'unknown_user') throw userNotFound();
    if (result === 'address_owned') {
      throw new AccountError('address_owned', 'Another verified account owns this address');
    }
    if (result === 'verified') this.log(audit, 'address marked verified');
    return this.view(userId);
  }

  /**
   * `gatehouse.users.manage`: a new verification link to the account's address, superseding older ones.
   * `account_error` when the account is verified, disabled, or its registration has expired.
   */
  async resendVerification(actor: AdminActor, userId: string): Promise<void> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageUsers);
    const user = await this.requireUserById(userId);
    if (user.verified) throw new AccountError('account_error', 'The address is already verified');
    if (user.disabledAt !== null) throw new AccountError('account_error', 'The account is disabled');
    if (this.core.hasExpired(user, this.core.clock.now())) {
      throw new AccountError('account_error', 'The registration has expired');
    }
    const audit = this.event(actor, 'admin.verification_resent', userId);
    await this.core.replaceTokenAndQueueLink(user, 'verify_email', audit);
    this.log(audit, 'verification link resent by an administrator');
  }

  /**
   * `gatehouse.users.delete`: the account and everything of it; `last_administrator` for the last administrator,
   * `last_owner` for the last owner of an organization with other members (the organizations it is alone in go too).
   */
  async deleteUser(actor: AdminActor, userId: string): Promise<void> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.deleteUsers);
    const audit = this.event(actor, 'admin.user_deleted', userId);
    const notice = this.core.messages.notice('accountDeleted', this.core.clock.now());
    const { result, alone } = await refusedForLastOwner(this.core, audit, () =>
      this.core.store.transaction(async (tx) => {
        // `last_owner` (undoing the transaction) while the account is the only owner of an organization with others.
        const alone = await organizationsEndingWith(tx, userId);
        // `audit.at` stamps the links that die with the account.
        const result = await tx.users.delete(userId, audit.at, { keepLastHolderOf: ADMIN_ROLE });
        if (result.outcome !== 'deleted') return { result, alone: [] };
        // The organizations it was the only member of go with it.
        await deleteAloneOrganizations(this.core, tx, alone, adminParties(actor, userId));
        // Addressed from the row as it was before it went.
        await tx.outbox.add(notice, result.user);
        await tx.audit.add(audit);
        return { result, alone };
      }),
    );
    this.expectDeleted(result);
    this.log(audit, 'account deleted by an administrator');
    this.core.delivery?.nudge();
    await afterAccountDeletion(this.core, alone);
  }

  /** `gatehouse.roles.manage`; returns the user's roles after the change. Idempotent. */
  async grantRole(actor: AdminActor, userId: string, role: string): Promise<string[]> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const name = checkRoleName(role);
    const audit = this.event(actor, 'admin.role_granted', userId, { role: name });
    expectGranted(
      await this.core.audited(audit, (tx) => tx.access.grantRole(userId, name, { grantor: grantorOf(actor) }), isOk),
    );
    this.log(audit, 'role granted');
    return this.core.store.access.listUserRoles(userId);
  }

  /** `gatehouse.roles.manage`; `last_administrator` when it would leave `ADMIN_ROLE` with no enabled holder. */
  async revokeRole(actor: AdminActor, userId: string, role: string): Promise<string[]> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const name = checkRoleName(role);
    const audit = this.event(actor, 'admin.role_revoked', userId, { role: name });
    const conditions = { keepLastHolder: name === ADMIN_ROLE, grantor: grantorOf(actor) };
    const result = await this.core.audited(audit, (tx) => tx.access.revokeRole(userId, name, conditions), isOk);
    if (result === 'last_holder') throw lastAdministrator();
    expectGranted(result);
    this.log(audit, 'role revoked');
    return this.core.store.access.listUserRoles(userId);
  }

  /** `gatehouse.roles.manage`. */
  async listRoles(actor: AdminActor): Promise<RoleSummary[]> {
    await this.authorise(actor, ADMIN_PERMISSIONS.manageRoles);
    return this.core.store.access.listRoles();
  }

  /** `gatehouse.roles.manage`. */
  async listPermissions(actor: AdminActor): Promise<string[]> {
    await this.authorise(actor, ADMIN_PERMISSIONS.manageRoles);
    return this.core.store.access.listPermissions();
  }

  /** `gatehouse.roles.manage`; true when created now (idempotent). */
  async createRole(actor: AdminActor, name: string): Promise<boolean> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const role = checkRoleName(name);
    const audit = this.event(actor, 'admin.role_created', null, { role });
    const created = await this.core.audited(audit, (tx) => tx.access.createRole(role));
    if (created) this.log(audit, 'role created');
    return created;
  }

  /** `gatehouse.roles.manage`; true when created now (idempotent). */
  async createPermission(actor: AdminActor, name: string): Promise<boolean> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const permission = checkPermissionName(name);
    const audit = this.event(actor, 'admin.permission_created', null, { permission });
    const created = await this.core.audited(audit, (tx) => tx.access.createPermission(permission));
    if (created) this.log(audit, 'permission created');
    return created;
  }

  /** `gatehouse.roles.manage`; idempotent. */
  async grantPermission(actor: AdminActor, role: string, permission: string): Promise<void> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const details = { role: checkRoleName(role), permission: checkPermissionName(permission) };
    const audit = this.event(actor, 'admin.permission_granted', null, details);
    const grantor = grantorOf(actor);
    expectGranted(
      await this.core.audited(
        audit,
        (tx) => tx.access.grantPermission(details.role, details.permission, grantor),
        isOk,
      ),
    );
    this.log(audit, 'permission granted to a role');
  }

  /** `gatehouse.roles.manage`; `protected_permission` for a Gatehouse permission of `ADMIN_ROLE`. */
  async revokePermission(actor: AdminActor, role: string, permission: string): Promise<void> {
    await this.authoriseChange(actor, ADMIN_PERMISSIONS.manageRoles);
    const details = { role: checkRoleName(role), permission: checkPermissionName(permission) };
    if (details.role === ADMIN_ROLE && (ALL_ADMIN_PERMISSIONS as readonly string[]).includes(details.permission)) {
      throw new AccountError('protected_permission', `${details.permission} cannot leave the ${ADMIN_ROLE} role`);
    }
    const audit = this.event(actor, 'admin.permission_revoked', null, details);
    const grantor = grantorOf(actor);
    expectGranted(
      await this.core.audited(
        audit,
        (tx) => tx.access.revokePermission(details.role, details.permission, grantor),
        isOk,
      ),
    );
    this.log(audit, 'permission revoked from a role');
  }

  /** `gatehouse.audit.read`: the audit trail, newest first, keyset-paginated. */
  async listAuditEvents(actor: AdminActor, filters: AuditFilters): Promise<Page<AuditEventView>> {
    await this.authorise(actor, ADMIN_PERMISSIONS.readAudit);
    const limit = pageSize(filters.limit);
    const query = { userId: filters.userId, types: filters.types, since: filters.since, until: filters.until };
    const scope: CursorScope = {
      list: 'audit',
      filters: { ...query, since: query.since?.getTime(), until: query.until?.getTime() },
    };
    const rows = await this.core.store.audit.list({
      ...query,
      after: this.after(scope, filters.cursor),
      limit: limit + 1,
    });
    // Recorded after the read, so a page never lists its own reading (it is newer than every row of the trail). The
    // filter is what the administrator typed: it is the event's subject only when it names an account, and is kept
    // nowhere else, so no address or free text ever reaches the trail.
    const subject = await this.accountNamedBy(filters.userId);
    await this.record(actor, 'admin.audit_read', subject, { shown: Math.min(rows.length, limit) });
    return this.pageOf(
      scope,
      rows,
      limit,
      (event) => event,
      (event) => ({ at: event.at, id: event.id }),
    );
  }

  /**
   * For the operator (CLI): creates `ADMIN_ROLE` with every Gatehouse permission where missing, and grants it to
   * the user. Returns whether the user did not hold it before. Every step is audited as the operator's.
   */
  async makeAdministrator(username: string): Promise<boolean> {
    const user = await this.core.requireUser(username);
    // Only what is missing, so that running it again writes nothing to the trail.
    const existing = (await this.core.store.access.listRoles()).find((role) => role.name === ADMIN_ROLE);
    if (!existing) await this.createRole(OPERATOR, ADMIN_ROLE);
    const known = new Set(await this.core.store.access.listPermissions());
    for (const permission of ALL_ADMIN_PERMISSIONS) {
      if (!known.has(permission)) await this.createPermission(OPERATOR, permission);
      if (!existing?.permissions.includes(permission)) await this.grantPermission(OPERATOR, ADMIN_ROLE, permission);
    }
    if ((await this.core.store.access.checkRole(user.id, ADMIN_ROLE)) === 'granted') return false;
    await this.grantRole(OPERATOR, user.id, ADMIN_ROLE);
    return true;
  }

  /** The id of the account with this username (for the operator's commands); `account_error` when unknown. */
  async userIdOf(username: string): Promise<string> {
    return (await this.core.requireUser(username)).id;
  }

  /**
   * The actor's permission, before anything is read: a signed-in user without it gets `permission_denied` whatever
   * the route and whatever the id, and a permission nobody created yet is simply not held.
   */
  private authorise(actor: AdminActor, permission: AdminPermission): Promise<void> {
    return authoriseAdmin(this.core, actor, permission);
  }

  /** `authorise`, then a recent proof of the administrator's own session for an action that changes something. */
  private authoriseChange(actor: AdminActor, permission: AdminPermission): Promise<void> {
    return authoriseAdminChange(this.core, actor, permission);
  }

  /** The id typed, when it names an existing account; otherwise null (it may be an address or any text). */
  private async accountNamedBy(userId: string | undefined): Promise<string | null> {
    if (!isRecordId(userId)) return null;
    return (await this.core.store.users.findById(userId)) ? userId : null;
  }

  /** The position after which a page starts, from a cursor this list handed out under these filters. */
  private after(scope: CursorScope, cursor: string | undefined): CursorKey | undefined {
    return cursor === undefined ? undefined : this.cursors.decode(scope, cursor);
  }

  /** The store was asked for one row more than the page holds: its presence says a next page exists. */
  private pageOf<Row, Item>(
    scope: CursorScope,
    rows: Row[],
    limit: number,
    toItem: (row: Row) => Item,
    keyOf: (row: Row) => CursorKey,
  ): Page<Item> {
    const shown = rows.slice(0, limit);
    const last = shown[shown.length - 1];
    return {
      items: shown.map(toItem),
      nextCursor: rows.length > limit && last !== undefined ? this.cursors.encode(scope, keyOf(last)) : null,
    };
  }

  private event(actor: AdminActor, type: AuditEventType, subjectId: string | null, details?: AuditDetails): AuditEvent {
    return this.core.audit.event(type, 'success', adminParties(actor, subjectId), details);
  }

  /** An admin action that changed nothing (a read): its own row, after the read succeeded. */
  private async record(
    actor: AdminActor,
    type: AuditEventType,
    subjectId: string | null,
    details?: AuditDetails,
  ): Promise<void> {
    await this.core.audit.write(this.event(actor, type, subjectId, details));
  }

  private log(event: AuditEvent, message: string, extra: AuditDetails = {}): void {
    this.core.logger.info(
      {
        event: event.type,
        outcome: event.outcome,
        ...(event.subjectId ? { userId: event.subjectId } : {}),
        actorType: event.actorType,
        ...(event.actorId ? { actorId: event.actorId } : {}),
        ...event.details,
        ...extra,
      },
      message,
    );
  }

  private expectChanged(result: ProtectedChangeResult | 'ok' | 'unknown_user'): void {
    if (result === 'unknown_user') throw userNotFound();
    if (result === 'last_holder') throw lastAdministrator();
  }

  /** `unauthorised` is never asked for here (the administration passes no `Authorisation`). */
  private expectDeleted(result: DeleteUserResult): void {
    if (result.outcome === 'deleted') return;
    if (result.outcome === 'last_holder') throw lastAdministrator();
    throw userNotFound();
  }

  private async requireUserById(userId: string): Promise<StoredUser> {
    const user = await this.core.store.users.findById(userId);
    if (!user) throw userNotFound();
    return user;
  }

  private async view(userId: string): Promise<AdminUserView> {
    const now = this.core.clock.now();
    const idleBefore = new Date(now.getTime() - this.core.options.sessionIdleTimeoutMs);
    const details = await this.core.store.admin.userDetails(userId, now, idleBefore);
    if (!details) throw userNotFound();
    return viewOf(details);
  }
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AccountError('account_error', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

/** The keys are NFKC and lower case; so is the prefix, or it could never match. */
function searchPrefix(prefix: string | undefined): string | undefined {
  if (prefix === undefined || prefix === '') return undefined;
  if (prefix.length > MAX_PREFIX_LENGTH) {
    throw new AccountError('account_error', `prefix must be at most ${MAX_PREFIX_LENGTH} characters`);
  }
  return prefix.normalize('NFKC').toLowerCase();
}

function summaryOf(user: StoredUser): AdminUserSummary {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    verified: user.verified,
    disabled: user.disabledAt !== null,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

function viewOf(details: UserDetails): AdminUserView {
  return {
    ...summaryOf(details.user),
    disabledAt: details.user.disabledAt,
    lastSignInAt: details.lastSignInAt,
    roles: details.roles,
    permissions: details.permissions,
    secondFactor: details.secondFactor,
    sessionCount: details.liveSessions,
  };
}

const isOk = (result: string): boolean => result === 'ok';
