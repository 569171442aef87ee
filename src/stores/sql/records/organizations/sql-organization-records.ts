import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  MemberRecord,
  OrganizationPage,
  OrganizationReads,
  OrganizationRecords,
  StoredInvitation,
  StoredMembership,
  StoredOrganization,
  UserOrganization,
} from '../../../../services/organizations/organization-records';
import type {
  Database,
  OrganizationInvitationsTable,
  OrganizationMembersTable,
  OrganizationsTable,
} from '../../schema';
import type { SqlUnit } from '../unit-of-work';

const ORGANIZATION_COLUMNS = [
  'id',
  'name',
  'created_by',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof OrganizationsTable)[];

const MEMBER_COLUMNS = [
  'organization_id',
  'user_id',
  'role',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof OrganizationMembersTable)[];

const INVITATION_COLUMNS = [
  'id',
  'organization_id',
  'email',
  'email_key',
  'role',
  'token_hash',
  'invited_by',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof OrganizationInvitationsTable)[];

type OrganizationRow = Pick<Selectable<OrganizationsTable>, (typeof ORGANIZATION_COLUMNS)[number]>;
type MemberRow = Pick<Selectable<OrganizationMembersTable>, (typeof MEMBER_COLUMNS)[number]>;
type InvitationRow = Pick<Selectable<OrganizationInvitationsTable>, (typeof INVITATION_COLUMNS)[number]>;

/** Organizations, their memberships and invitations, read on `db` (the store's, or a transaction's). */
export class SqlOrganizationReads implements OrganizationReads {
  constructor(private readonly db: Kysely<Database>) {}

  async find(id: string): Promise<StoredOrganization | null> {
    const row = await this.db
      .selectFrom('organizations')
      .select(ORGANIZATION_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? fromOrganizationRow(row) : null;
  }

  async membership(organizationId: string, userId: string): Promise<StoredMembership | null> {
    const row = await this.db
      .selectFrom('organization_members')
      .select(MEMBER_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? fromMemberRow(row) : null;
  }

  async listForUser(userId: string): Promise<UserOrganization[]> {
    // `organization_members_user_id_index` finds them; oldest membership first, then by the organization's id.
    const rows = await this.db
      .selectFrom('organization_members as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select(ORGANIZATION_COLUMNS.map((column) => `o.${column}` as const))
      .select(['m.role', 'm.created_at as joined_at'])
      .where('m.user_id', '=', userId)
      .orderBy('m.created_at')
      .orderBy('m.organization_id')
      .execute();
    return rows.map((row) => ({
      organization: fromOrganizationRow(row),
      role: row.role,
      joinedAt: new Date(Number(row.joined_at)),
    }));
  }

  async listMembers(organizationId: string): Promise<MemberRecord[]> {
    // The primary key (organization_id, user_id) finds them; oldest first, then by the user's id.
    const rows = await this.db
      .selectFrom('organization_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(MEMBER_COLUMNS.map((column) => `m.${column}` as const))
      .select(['u.username', 'u.email'])
      .where('m.organization_id', '=', organizationId)
      .orderBy('m.created_at')
      .orderBy('m.user_id')
      .execute();
    return rows.map((row) => ({ ...fromMemberRow(row), username: row.username, email: row.email }));
  }

  async listInvitations(organizationId: string, now: Date): Promise<StoredInvitation[]> {
    const rows = await this.db
      .selectFrom('organization_invitations')
      .select(INVITATION_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('expires_at', '>', now.getTime())
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(fromInvitationRow);
  }

  async findInvitation(organizationId: string, id: string, now: Date): Promise<StoredInvitation | null> {
    const row = await this.db
      .selectFrom('organization_invitations')
      .select(INVITATION_COLUMNS)
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromInvitationRow(row) : null;
  }

  async findInvitationByToken(tokenHash: string, now: Date): Promise<StoredInvitation | null> {
    const row = await this.db
      .selectFrom('organization_invitations')
      .select(INVITATION_COLUMNS)
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromInvitationRow(row) : null;
  }

  async list(page: OrganizationPage): Promise<StoredOrganization[]> {
    const { after, limit } = page;
    if (limit <= 0) return [];
    const rows = await this.db
      .selectFrom('organizations')
      .select(ORGANIZATION_COLUMNS)
      .$if(after !== undefined, (query) => query.where('id', '>', after!))
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(fromOrganizationRow);
  }

  async countMembers(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async countMembersWithRole(organizationId: string, role: string): Promise<number> {
    const row = await this.db
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('organization_id', '=', organizationId)
      .where('role', '=', role)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async countPendingInvitations(organizationId: string, now: Date): Promise<number> {
    const row = await this.db
      .selectFrom('organization_invitations')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('organization_id', '=', organizationId)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async countForUser(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

/**
 * Organizations inside a transaction. The core takes the user's lock (`lockUser`), then the organization's (`lock`:
 * FOR UPDATE on its row where writers lock rows; SQLite has one writer at a time), and only then changes its members
 * or invitations: counts and roles read after the lock hold until commit. A membership's or an invitation's insert
 * checks its organization's key, which FOR UPDATE holds: a writer that skipped the lock would still wait there.
 */
export class SqlOrganizationRecords implements OrganizationRecords {
  constructor(private readonly unit: SqlUnit) {}

  async find(id: string): Promise<StoredOrganization | null> {
    return (await this.reads()).find(id);
  }

  async membership(organizationId: string, userId: string): Promise<StoredMembership | null> {
    return (await this.reads()).membership(organizationId, userId);
  }

  async listForUser(userId: string): Promise<UserOrganization[]> {
    return (await this.reads()).listForUser(userId);
  }

  async listMembers(organizationId: string): Promise<MemberRecord[]> {
    return (await this.reads()).listMembers(organizationId);
  }

  async listInvitations(organizationId: string, now: Date): Promise<StoredInvitation[]> {
    return (await this.reads()).listInvitations(organizationId, now);
  }

  async findInvitation(organizationId: string, id: string, now: Date): Promise<StoredInvitation | null> {
    return (await this.reads()).findInvitation(organizationId, id, now);
  }

  async findInvitationByToken(tokenHash: string, now: Date): Promise<StoredInvitation | null> {
    return (await this.reads()).findInvitationByToken(tokenHash, now);
  }

  async list(page: OrganizationPage): Promise<StoredOrganization[]> {
    return (await this.reads()).list(page);
  }

  async countMembers(organizationId: string): Promise<number> {
    return (await this.reads()).countMembers(organizationId);
  }

  async countMembersWithRole(organizationId: string, role: string): Promise<number> {
    return (await this.reads()).countMembersWithRole(organizationId, role);
  }

  async countPendingInvitations(organizationId: string, now: Date): Promise<number> {
    return (await this.reads()).countPendingInvitations(organizationId, now);
  }

  async countForUser(userId: string): Promise<number> {
    return (await this.reads()).countForUser(userId);
  }

  async lockUser(userId: string): Promise<boolean> {
    const trx = await this.unit.ready();
    // The lock every change of a user's rows takes first (see `lockUser` in user-rows.ts).
    const row = await trx
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .$if(this.unit.capabilities.rowLocks, (query) => query.forNoKeyUpdate())
      .executeTakeFirst();
    return row !== undefined;
  }

  async lock(id: string): Promise<StoredOrganization | null> {
    const trx = await this.unit.ready();
    // FOR UPDATE, not FOR NO KEY UPDATE: it also holds off the key checks of inserts into its members and
    // invitations, so no membership or invitation of it appears while the lock is held, whatever the writer.
    const row = await trx
      .selectFrom('organizations')
      .select(ORGANIZATION_COLUMNS)
      .where('id', '=', id)
      .$if(this.unit.capabilities.rowLocks, (query) => query.forUpdate())
      .executeTakeFirst();
    return row ? fromOrganizationRow(row) : null;
  }

  async create(organization: StoredOrganization): Promise<void> {
    const trx = await this.unit.ready();
    if (organization.createdBy !== null) {
      // As the foreign key would refuse it, on SQLite too (whose connections do not enforce foreign keys).
      const creator = await trx
        .selectFrom('users')
        .select('id')
        .where('id', '=', organization.createdBy)
        .executeTakeFirst();
      if (!creator) throw new Error('SqlUserStore: no user with that id');
    }
    await trx.insertInto('organizations').values(toOrganizationRow(organization)).execute();
  }

  async rename(id: string, name: string, now: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    const result = await trx
      .updateTable('organizations')
      .set({ name, updated_at: now.getTime() })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const trx = await this.unit.ready();
    // The organization's row first (its lock, where it was not taken yet); the foreign keys cascade, and the
    // dependents are deleted explicitly as well for a connection that does not enforce them (SQLite's default).
    const result = await trx.deleteFrom('organizations').where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.deleteFrom('organization_members').where('organization_id', '=', id).execute();
    await trx.deleteFrom('organization_invitations').where('organization_id', '=', id).execute();
    return true;
  }

  async addMember(membership: StoredMembership): Promise<'added' | 'duplicate' | 'gone'> {
    const trx = await this.unit.ready();
    // Both rows checked in one read (the caller holds their locks, so they stay): an insert that a foreign key
    // refused would abort a PostgreSQL transaction, and SQLite's connections do not check them.
    const there = await trx
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom('users').select('id').where('id', '=', membership.userId)).as('user'),
        eb
          .exists(eb.selectFrom('organizations').select('id').where('id', '=', membership.organizationId))
          .as('organization'),
      ])
      .executeTakeFirstOrThrow();
    if (!truthy(there.user) || !truthy(there.organization)) return 'gone';
    const inserted = await trx
      .insertInto('organization_members')
      .values(toMemberRow(membership))
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    return inserted ? 'added' : 'duplicate';
  }

  async setRole(organizationId: string, userId: string, role: string, now: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    const result = await trx
      .updateTable('organization_members')
      .set({ role, updated_at: now.getTime() })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async removeMember(organizationId: string, userId: string): Promise<boolean> {
    const trx = await this.unit.ready();
    const result = await trx
      .deleteFrom('organization_members')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async createInvitation(invitation: StoredInvitation): Promise<void> {
    const trx = await this.unit.ready();
    // As the foreign keys would refuse it, on SQLite too.
    const there = await trx
      .selectNoFrom((eb) => [
        eb
          .exists(eb.selectFrom('organizations').select('id').where('id', '=', invitation.organizationId))
          .as('organization'),
        invitation.invitedBy === null
          ? eb.lit(1).as('inviter')
          : eb.exists(eb.selectFrom('users').select('id').where('id', '=', invitation.invitedBy)).as('inviter'),
      ])
      .executeTakeFirstOrThrow();
    if (!truthy(there.organization)) throw new Error('SqlUserStore: no organization with that id');
    if (!truthy(there.inviter)) throw new Error('SqlUserStore: no user with that id');
    // The one of the same organization and address goes first, expired or not: its token stops working.
    await trx
      .deleteFrom('organization_invitations')
      .where('organization_id', '=', invitation.organizationId)
      .where('email_key', '=', invitation.emailKey)
      .execute();
    await trx.insertInto('organization_invitations').values(toInvitationRow(invitation)).execute();
  }

  async consumeInvitation(tokenHash: string, now: Date): Promise<StoredInvitation | null> {
    const trx = await this.unit.ready();
    // One DELETE ... RETURNING is the claim: of concurrent callers only the one whose statement deleted the row gets
    // it. An expired one is deleted too, and answers null.
    const row = await trx
      .deleteFrom('organization_invitations')
      .where('token_hash', '=', tokenHash)
      .returning(INVITATION_COLUMNS)
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= now.getTime()) return null;
    return fromInvitationRow(row);
  }

  async renewInvitation(
    organizationId: string,
    id: string,
    renewal: { tokenHash: string; createdAt: Date; expiresAt: Date },
    now: Date,
  ): Promise<StoredInvitation | null> {
    const trx = await this.unit.ready();
    const row = await trx
      .updateTable('organization_invitations')
      .set({
        token_hash: renewal.tokenHash,
        created_at: renewal.createdAt.getTime(),
        expires_at: renewal.expiresAt.getTime(),
      })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('expires_at', '>', now.getTime())
      .returning(INVITATION_COLUMNS)
      .executeTakeFirst();
    return row ? fromInvitationRow(row) : null;
  }

  async deleteInvitation(organizationId: string, id: string): Promise<StoredInvitation | null> {
    const trx = await this.unit.ready();
    const row = await trx
      .deleteFrom('organization_invitations')
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .returning(INVITATION_COLUMNS)
      .executeTakeFirst();
    return row ? fromInvitationRow(row) : null;
  }

  private async reads(): Promise<SqlOrganizationReads> {
    return new SqlOrganizationReads(await this.unit.ready());
  }
}

/** An EXISTS as the drivers give it back: a boolean (PostgreSQL) or 0/1 (SQLite). */
function truthy(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

function toOrganizationRow(organization: StoredOrganization): Insertable<OrganizationsTable> {
  return {
    id: organization.id,
    name: organization.name,
    created_by: organization.createdBy,
    created_at: organization.createdAt.getTime(),
    updated_at: organization.updatedAt.getTime(),
  };
}

function fromOrganizationRow(row: OrganizationRow): StoredOrganization {
  return {
    id: row.id,
    name: row.name,
    createdBy: row.created_by,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

function toMemberRow(membership: StoredMembership): Insertable<OrganizationMembersTable> {
  return {
    organization_id: membership.organizationId,
    user_id: membership.userId,
    role: membership.role,
    created_at: membership.createdAt.getTime(),
    updated_at: membership.updatedAt.getTime(),
  };
}

function fromMemberRow(row: MemberRow): StoredMembership {
  return {
    organizationId: row.organization_id,
    userId: row.user_id,
    role: row.role,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}

function toInvitationRow(invitation: StoredInvitation): Insertable<OrganizationInvitationsTable> {
  return {
    id: invitation.id,
    organization_id: invitation.organizationId,
    email: invitation.email,
    email_key: invitation.emailKey,
    role: invitation.role,
    token_hash: invitation.tokenHash,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt.getTime(),
    expires_at: invitation.expiresAt.getTime(),
  };
}

function fromInvitationRow(row: InvitationRow): StoredInvitation {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    emailKey: row.email_key,
    role: row.role,
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}
