import type { Kysely } from 'kysely';
import type {
  CreateUserResult,
  DeleteConditions,
  DeleteUserResult,
  MarkVerifiedResult,
  NewUser,
  ProtectedChangeResult,
  UserRecords,
} from '../../../services/store/user-records';
import type { StoredToken, StoredUser } from '../../../services/types';
import { fromUserRow, toCredentialRow, toTokenRow, toUserRow } from '../rows';
import { runPrepared } from '../run-prepared';
import { type Database, USER_COLUMNS } from '../schema';
import { deleteTokensOf, endSessionsAndResets } from './credential-ends';
import { failPendingLinks, supersedeMessages } from './pending-links';
import { SqlUserReads } from './sql-user-reads';
import { consumeToken } from './sql-token-records';
import type { SqlUnit } from './unit-of-work';
import { deleteUsersWithDependents, endRegistrations } from './user-owned-tables';
import { isLastEnabledHolder, lockedUser, sessionStillOpen, type UserRow, verifiedOwnerOf } from './user-rows';

/** Users inside a transaction: registrations, the claims of addresses, deletion, disabling. */
export class SqlUserRecords implements UserRecords {
  constructor(private readonly unit: SqlUnit) {}

  async findById(id: string): Promise<StoredUser | null> {
    return (await this.reads()).findById(id);
  }

  async findByUsernameKey(usernameKey: string): Promise<StoredUser | null> {
    return (await this.reads()).findByUsernameKey(usernameKey);
  }

  async findVerifiedByEmailKey(emailKey: string): Promise<StoredUser | null> {
    return (await this.reads()).findVerifiedByEmailKey(emailKey);
  }

  async findUnverifiedByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]> {
    return (await this.reads()).findUnverifiedByEmailKey(emailKey, createdAfter, limit);
  }

  async create(user: NewUser, verification: StoredToken, expiredUnverifiedBefore?: Date): Promise<CreateUserResult> {
    const { capabilities } = this.unit;
    const row = toUserRow({
      ...user,
      verified: false,
      updatedAt: user.createdAt,
      disabledAt: null,
      credentialEpoch: 0,
    });
    // One read finds both possible holders: of the name (any account), and of the address (a verified one).
    const holders = async (db: Kysely<Database>) =>
      judgeHolders(
        (
          await runPrepared(
            db,
            capabilities,
            db
              .selectFrom('users')
              .select(USER_COLUMNS)
              .where((eb) =>
                eb.or([
                  eb('username_key', '=', user.usernameKey),
                  eb.and([eb('email_key', '=', user.emailKey), eb('verified', '=', 1)]),
                ]),
              ),
          )
        ).rows,
        user.usernameKey,
        expiredUnverifiedBefore,
      );
    // Checking first answers every conflict that committed before the insert. A conflicting insert that commits
    // meanwhile (possible where the write lock is per row, as in PostgreSQL) fails ours with a unique violation; the
    // second run then sees that row in its check.
    this.unit.retryOnUniqueViolation(2);
    // Before the transaction is open (PostgreSQL, see `SqlUnit`), the check is a plain read either way (READ
    // COMMITTED: each statement sees what committed before it), and a registration that replaces nobody needs no
    // transaction: its inserts go as one statement, atomic and durable on its own.
    let found = await holders(this.unit.inTransaction ? await this.unit.ready() : this.unit.db);
    if (found.taken) return { ok: false, conflict: 'username' };
    if (found.expired && !this.unit.inTransaction) {
      found = await holders(await this.unit.ready());
      if (found.taken) return { ok: false, conflict: 'username' };
    }
    if (found.expired) await deleteUsersWithDependents(await this.unit.ready(), [found.expired.id]);
    // They wait to go with the link (or the owner's notice) and the audit event: one statement on PostgreSQL.
    this.unit.queue((db) => db.insertInto('users').values(row));
    if (user.passwordHash !== null) {
      const password = toCredentialRow(user.id, 'password', user.passwordHash, user.createdAt);
      this.unit.queue((db) => db.insertInto('credentials').values(password));
    }
    this.unit.queue((db) => db.insertInto('tokens').values(toTokenRow(verification)));
    return {
      ok: true,
      user: fromUserRow({ ...row, disabled_at: null, last_sign_in_at: null, credential_epoch: 0 }),
      owner: found.owner ? fromUserRow(found.owner) : null,
    };
  }

  async confirmAddress(tokenHash: string, now: Date): Promise<StoredUser | null> {
    // A unique violation means another registration of the address was confirmed while we ran (PostgreSQL, where two
    // confirmations lock different rows); the second run finds that owner and refuses.
    this.unit.retryOnUniqueViolation(2);
    const trx = await this.unit.ready();
    const claim = await trx
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select('u.email_key')
      .where('t.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!claim) return null;
    const emailKey = claim.email_key;
    if (this.unit.capabilities.rowLocks) {
      // Every registration of the address, in one order, before any token: concurrent confirmations of one address
      // queue here instead of deadlocking, and the later one then finds its own row and token gone, or the owner.
      await trx.selectFrom('users').select('id').where('email_key', '=', emailKey).orderBy('id').forUpdate().execute();
    }
    const userId = await consumeToken(trx, tokenHash, 'verify_email', now, false);
    if (userId === null) return null;
    const owner = await trx
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', emailKey)
      .where('verified', '=', 1)
      .executeTakeFirst();
    if (owner) return null;
    const row = await trx
      .updateTable('users')
      .set({ verified: 1, updated_at: now.getTime() })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    const others = await trx
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', emailKey)
      .where('verified', '=', 0)
      .execute();
    await endRegistrations(
      trx,
      others.map((other) => other.id),
      now,
    );
    return fromUserRow(row);
  }

  async markVerified(userId: string, now: Date): Promise<MarkVerifiedResult> {
    if (userId.includes('\u0000')) return 'unknown_user';
    // As `confirmAddress`: a unique violation means another registration of the address became its owner while we
    // ran; the second run finds that owner.
    this.unit.retryOnUniqueViolation(2);
    const trx = await this.unit.ready();
    const claim = await trx.selectFrom('users').select('email_key').where('id', '=', userId).executeTakeFirst();
    if (!claim) return 'unknown_user';
    if (this.unit.capabilities.rowLocks) {
      // The user and every registration of its address, in one order (by id, as `confirmAddress` takes them).
      await trx
        .selectFrom('users')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', userId), eb('email_key', '=', claim.email_key)]))
        .orderBy('id')
        .forUpdate()
        .execute();
    }
    const user = await trx
      .selectFrom('users')
      .select(['verified', 'email_key'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) return 'unknown_user';
    if (user.verified) return 'already_verified';
    if (await verifiedOwnerOf(trx, user.email_key, userId)) return 'address_owned';
    await trx.updateTable('users').set({ verified: 1, updated_at: now.getTime() }).where('id', '=', userId).execute();
    const others = await trx
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', user.email_key)
      .where('verified', '=', 0)
      .where('id', '<>', userId)
      .execute();
    await endRegistrations(
      trx,
      others.map((other) => other.id),
      now,
    );
    // Its own links are not needed any more: they die with their tokens.
    await deleteTokensOf(trx, userId, 'verify_email');
    await supersedeMessages(trx, userId, 'verification', now);
    return 'verified';
  }

  async delete(userId: string, at: Date, conditions: DeleteConditions = {}): Promise<DeleteUserResult> {
    // PostgreSQL text holds no NUL, so no user has one, and asking would be an error there.
    if (userId.includes('\u0000')) return { outcome: 'unknown_user' };
    const { authorisation, keepLastHolderOf } = conditions;
    const { rowLocks } = this.unit.capabilities;
    const trx = await this.unit.ready();
    // The user row is locked first, as in every transaction that changes a user and what hangs off it: one lock order
    // keeps row-locking databases from deadlocking. A reset or change under way finishes first, and the row is then
    // judged as it left it. It is read whole while it is still there: the notice of the deletion goes to it.
    const row = await trx
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('id', '=', userId)
      .$if(rowLocks, (query) => query.forUpdate())
      .executeTakeFirst();
    if (!row) return { outcome: 'unknown_user' };
    if (
      authorisation &&
      (Number(row.credential_epoch) !== authorisation.credentialEpoch ||
        !(await sessionStillOpen(trx, authorisation.sessionTokenHash, userId, rowLocks)))
    ) {
      return { outcome: 'unauthorised' };
    }
    if (keepLastHolderOf !== undefined && (await isLastEnabledHolder(trx, userId, keepLastHolderOf, rowLocks))) {
      return { outcome: 'last_holder' };
    }
    // Its links die with its tokens and its pending change; messages without one stay (a message outlives its user).
    await failPendingLinks(trx, [userId], at);
    if ((await deleteUsersWithDependents(trx, [userId])) === 0) return { outcome: 'unknown_user' };
    return { outcome: 'deleted', user: fromUserRow(row) };
  }

  async disable(userId: string, at: Date, keepLastHolderOf?: string): Promise<ProtectedChangeResult> {
    if (userId.includes('\u0000')) return 'unknown_user';
    const { rowLocks } = this.unit.capabilities;
    const trx = await this.unit.ready();
    // The user row first, FOR UPDATE (the lock order): a login under way (its UPDATE of this row) commits its
    // session first, which is then deleted here, or waits and then finds the account disabled.
    const user = await trx
      .selectFrom('users')
      .select(['id', 'disabled_at'])
      .where('id', '=', userId)
      .$if(rowLocks, (query) => query.forUpdate())
      .executeTakeFirst();
    if (!user) return 'unknown_user';
    if (user.disabled_at === null) {
      if (keepLastHolderOf !== undefined && (await isLastEnabledHolder(trx, userId, keepLastHolderOf, rowLocks))) {
        return 'last_holder';
      }
      await trx
        .updateTable('users')
        .set({ disabled_at: at.getTime(), updated_at: at.getTime() })
        .where('id', '=', userId)
        .execute();
    }
    // Already disabled: the earlier instant stands, and this only makes sure nothing was left to act with.
    // What a password change ends, and the verification links too: nothing is left to act with.
    await endSessionsAndResets(trx, userId, at);
    await deleteTokensOf(trx, userId, 'verify_email');
    await failPendingLinks(trx, [userId], at);
    return 'ok';
  }

  async enable(userId: string, now: Date): Promise<'ok' | 'unknown_user'> {
    if (userId.includes('\u0000')) return 'unknown_user';
    const trx = await this.unit.ready();
    if (!(await lockedUser(trx, userId, this.unit.capabilities.rowLocks))) return 'unknown_user';
    await trx
      .updateTable('users')
      .set({ disabled_at: null, updated_at: now.getTime() })
      .where('id', '=', userId)
      .where('disabled_at', 'is not', null)
      .execute();
    return 'ok';
  }

  private async reads(): Promise<SqlUserReads> {
    return new SqlUserReads(await this.unit.ready(), this.unit.queries);
  }
}

/** Who holds a new registration's name and address (`create`'s one read). */
interface Holders {
  /** The name is held by an account that counts: the registration fails. */
  taken: boolean;
  /** The name is held by an unverified registration past its time: it goes, and the new one takes the name. */
  expired?: { id: string };
  /** The verified owner of the address, told of the attempt instead of sent a link. */
  owner?: UserRow;
}

function judgeHolders(
  rows: readonly UserRow[],
  usernameKey: string,
  expiredUnverifiedBefore: Date | undefined,
): Holders {
  const nameHolder = rows.find((holder) => holder.username_key === usernameKey);
  const expired =
    nameHolder !== undefined &&
    expiredUnverifiedBefore !== undefined &&
    !nameHolder.verified &&
    Number(nameHolder.created_at) <= expiredUnverifiedBefore.getTime();
  if (nameHolder && !expired) return { taken: true };
  // Never the expired name holder: that one was unverified.
  const owner = rows.find((holder) => holder !== nameHolder && holder.verified);
  return { taken: false, expired: nameHolder, owner };
}
