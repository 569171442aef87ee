import { randomUUID } from 'node:crypto';
import { Kysely, type SelectQueryBuilder, type Updateable } from 'kysely';
import type { AuditEvent, AuditQuery, NewAuditEvent } from '../../services/audit-event';
import { type Awaitable, whenReady } from '../../services/awaitable';
import {
  carriesLink,
  changeInstant,
  OUTBOX_KINDS,
  SUPERSEDED_ERROR,
  type OutboxKind,
} from '../../services/outbox-message';
import {
  AccessAnswer,
  AccessQuery,
  Authorisation,
  ClaimedMessage,
  CreateUserOptions,
  CreateUserResult,
  EmailChangeMessages,
  EmailChangeRequestResult,
  EmailChangeResult,
  ExpiryCutoffs,
  GrantResult,
  AccessChangeRefusal,
  MarkVerifiedResult,
  NewOutboxMessage,
  NewUser,
  OutboxEntry,
  OutboxQuery,
  ProtectedChangeResult,
  RetryTarget,
  RevokeRoleResult,
  RoleSummary,
  SecondFactorEnabling,
  SessionCheck,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserDetails,
  UserListQuery,
  UserStore,
} from '../../services/user-store';
import { auditInsert, insertAudit, listAuditEvents } from './audit-trail';
import { insertTogether, type PendingInsert } from './insert-together';
import {
  claimedFromOutboxRow,
  fromEmailChangeRow,
  fromLoginChallengeRow,
  fromOutboxRow,
  fromSecondFactorRow,
  fromSessionCheckRow,
  fromSessionRow,
  fromUserRow,
  toEmailChangeRow,
  toLoginChallengeRow,
  toOutboxRow,
  toSecondFactorRow,
  toSessionRow,
  toTokenRow,
  toUserRow,
} from './rows';
import type { PrecompiledQuery } from './precompiled-query';
import { ACCESS_CODES, requestPathQueries, type RequestPathQueries } from './request-path-queries';
import { Database, OUTBOX_COLUMNS, type OutboxTable, USER_COLUMNS } from './schema';
import { runPrepared } from './run-prepared';
import type { SqlCapabilities, WriteOptions } from './sql-capabilities';
import { listUsers } from './user-list-query';

/** Rows removed per transaction by `deleteExpired`. */
const CLEANUP_BATCH_SIZE = 1000;

/**
 * Commits that do not wait for the disk (`WriteOptions.durable`): those that a crash of the machine can only undo into
 * work done again. The outbox's claims and delivery marks (the message is sent again). A new session with its
 * sign-in record (the user signs in again: an undone session is refused, never revived; and any later write that does
 * wait flushes it first, both logs being sequential). A session's idle window moved forward (it may end a little
 * sooner). Whatever ends a session, changes a credential or creates an account waits for the disk.
 */
const UNFLUSHED: WriteOptions = { durable: false };

/** Those of them that are one statement each (`WriteOptions.oneStatement`). */
const UNFLUSHED_STATEMENT: WriteOptions = { durable: false, oneStatement: true };

/**
 * The `UserStore` over SQL, written once with Kysely; the database is chosen by the Kysely dialect and the
 * `SqlCapabilities` passed in. The schema must be migrated first (`migrateToLatest`). Every write runs in
 * `capabilities.writeTransaction`; multi-step operations run in one such transaction, so they happen whole or not at
 * all, and single-use tokens are claimed by one conditional `DELETE ... RETURNING` that only one caller can win.
 *
 * @example
 * const store = new SqlUserStore(new Kysely<Database>({ dialect }), capabilities);
 */
export class SqlUserStore implements UserStore {
  private closed = false;
  private readonly queries: RequestPathQueries;

  /**
   * @param db Exposed for health checks, tests and a host's own queries. Writing through it bypasses the store's
   *   guarantees.
   */
  constructor(
    readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
  ) {
    this.queries = requestPathQueries(db, capabilities);
  }

  async createUser(
    user: NewUser,
    verification: StoredToken,
    options: CreateUserOptions = {},
  ): Promise<CreateUserResult> {
    const row = toUserRow({ ...user, verified: false, updatedAt: user.createdAt, disabledAt: null });
    // One read finds both possible holders: of the name (any account), and of the address (a verified one).
    const holders = async (db: Kysely<Database>) =>
      judgeHolders(
        (
          await runPrepared(
            db,
            this.capabilities,
            db
              .selectFrom('users')
              .select(['id', 'username', 'email', 'username_key', 'verified', 'created_at'])
              .where((eb) =>
                eb.or([
                  eb('username_key', '=', user.usernameKey),
                  eb.and([eb('email_key', '=', user.emailKey), eb('verified', '=', 1)]),
                ]),
              ),
          )
        ).rows,
        user.usernameKey,
        options.expiredUnverifiedBefore,
      );
    const insertAll = (db: Kysely<Database>, owner: Recipient | undefined) =>
      insertTogether(db, this.capabilities, [
        db.insertInto('users').values(row),
        db.insertInto('tokens').values(toTokenRow(verification)),
        owner ? messageInsert(db, options.ownerNotice, owner) : messageInsert(db, options.link, user),
        auditInsert(db, options.audit, user.id),
      ]);
    const created = (owner: Recipient | undefined): CreateUserResult => ({
      ok: true,
      user: fromUserRow({ ...row, disabled_at: null, last_sign_in_at: null }),
      addressOwned: owner !== undefined,
    });
    // Checking first answers every conflict that committed before the insert. A conflicting insert that commits
    // meanwhile (possible where the write lock is per row, as in PostgreSQL) fails ours with a unique violation; the
    // second attempt then sees that row in its check.
    for (let attempt = 1; ; attempt++) {
      try {
        // Where the inserts are one statement (PostgreSQL), a registration that replaces nobody needs no transaction:
        // the check is a plain read either way (READ COMMITTED: each statement sees what committed before it), and
        // one statement is atomic and durable on its own. That saves BEGIN and COMMIT, two of four round trips.
        if (this.capabilities.insertsTogether) {
          const found = await holders(this.db);
          if (found.taken) return { ok: false, conflict: 'username' };
          if (!found.expired) {
            await insertAll(this.db, found.owner);
            return created(found.owner);
          }
        }
        return await this.write(async (trx): Promise<CreateUserResult> => {
          const found = await holders(trx);
          if (found.taken) return { ok: false, conflict: 'username' };
          if (found.expired) await deleteUsersWithDependents(trx, [found.expired.id]);
          await insertAll(trx, found.owner);
          return created(found.owner);
        });
      } catch (error) {
        if (attempt >= 2 || !this.capabilities.isUniqueViolation(error)) throw error;
      }
    }
  }

  async findUserById(id: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.userById, id);
  }

  async findUserByUsernameKey(usernameKey: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.userByUsernameKey, usernameKey);
  }

  async findVerifiedUserByEmailKey(emailKey: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.verifiedUserByEmailKey, emailKey);
  }

  async findUnverifiedUsersByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]> {
    if (emailKey.includes('\u0000') || limit < 1) return [];
    const rows = await this.db
      .selectFrom('users as u')
      .select(USER_COLUMNS.map((column) => `u.${column}` as const))
      .where('u.email_key', '=', emailKey)
      .where('u.verified', '=', 0)
      .where('u.created_at', '>', createdAfter.getTime())
      .orderBy('u.created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(fromUserRow);
  }

  async findUserByToken(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null> {
    const row = await this.db
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .selectAll('u')
      .where('t.token_hash', '=', tokenHash)
      .where('t.purpose', '=', purpose)
      .where('t.expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromUserRow(row) : null;
  }

  async replaceToken(token: StoredToken, message?: NewOutboxMessage, audit?: NewAuditEvent): Promise<void> {
    await this.write(async (trx) => {
      if (this.capabilities.rowLocks) await lockUser(trx, token.userId);
      // A disabled account gets no new token (a disable committed first; one committing later deletes this one).
      if (await isDisabled(trx, token.userId)) return;
      await deleteTokensOf(trx, token.userId, token.purpose);
      await trx.insertInto('tokens').values(toTokenRow(token)).execute();
      await insertAudit(trx, audit, token.userId);
      if (!message) return;
      const recipient = await recipientOf(trx, token.userId);
      // The token insert above has already failed for an unknown user; this only narrows the type.
      if (!recipient) throw new Error('SqlUserStore: no user with that id');
      await supersedeMessages(trx, token.userId, message.kind, message.createdAt);
      await insertMessage(trx, message, recipient);
    });
  }

  async verifyEmail(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null> {
    // A unique violation means another registration of the address was confirmed while we ran (PostgreSQL, where two
    // confirmations lock different rows); the second attempt finds that owner and refuses.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(async (trx) => {
          const user = await this.confirmRegistration(trx, tokenHash, now, message);
          if (user) await insertAudit(trx, audit, user.id);
          return user;
        });
      } catch (error) {
        if (attempt >= 2 || !this.capabilities.isUniqueViolation(error)) throw error;
      }
    }
  }

  async resetPassword(
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null> {
    return this.write(async (trx) => {
      const userId = await consumeToken(trx, tokenHash, 'reset_password', now, this.capabilities.rowLocks);
      if (userId === null) return null;
      const row = await trx
        .updateTable('users')
        .set({ password_hash: newPasswordHash, updated_at: now.getTime() })
        .where('id', '=', userId)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      await endSessionsAndResets(trx, userId, now);
      await insertMessage(trx, message, row);
      await insertAudit(trx, audit, userId);
      return fromUserRow(row);
    });
  }

  async changePassword(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    sessionTokenHash?: string,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    return this.write(async (trx) => {
      if (sessionTokenHash !== undefined) {
        if (this.capabilities.rowLocks) await lockUser(trx, userId);
        if (!(await sessionStillOpen(trx, sessionTokenHash, userId, this.capabilities.rowLocks))) return false;
      }
      const recipient = await replacePasswordHash(trx, userId, expectedHash, newPasswordHash, now);
      if (!recipient) return false;
      await endSessionsAndResets(trx, userId, now);
      await insertMessage(trx, message, recipient);
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async rehashPassword(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean> {
    return this.write(
      async (trx) => (await replacePasswordHash(trx, userId, expectedHash, newPasswordHash, now)) !== null,
    );
  }

  async deleteUser(
    userId: string,
    message?: NewOutboxMessage,
    authorisation?: Authorisation,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    // The user row is locked first, as in every transaction that changes a user and what hangs off it: one lock order
    // keeps row-locking databases from deadlocking. A reset or change under way finishes first, and the row is then
    // judged as it left it. The notice is addressed from the row while it is still there, and is not a dependent:
    // it stays.
    return this.write(async (trx) => {
      const recipient = await trx
        .selectFrom('users')
        .select(['id', 'username', 'email'])
        .where('id', '=', userId)
        .$if(authorisation !== undefined, (query) => query.where('password_hash', '=', authorisation!.passwordHash))
        .$if(this.capabilities.rowLocks, (query) => query.forUpdate())
        .executeTakeFirst();
      if (!recipient) return false;
      if (
        authorisation &&
        !(await sessionStillOpen(trx, authorisation.sessionTokenHash, userId, this.capabilities.rowLocks))
      ) {
        return false;
      }
      await insertMessage(trx, message, recipient);
      // Its links die with its tokens and its pending change; the notice just queued carries none and goes.
      await failPendingLinks(trx, [userId], changeInstant(audit, message));
      if ((await deleteUsersWithDependents(trx, [userId])) === 0) return false;
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async createSession(session: StoredSession, passwordHash: string, audit?: NewAuditEvent): Promise<boolean> {
    // The user row first, in one conditional UPDATE that is both the check (this password hash, not disabled) and the
    // row lock: where writers lock rows (PostgreSQL), it waits for a reset, change, deletion or disable of the user
    // that is under way, and then judges the row as that left it (READ COMMITTED re-checks the condition on the new
    // version). Otherwise it could pass the old row and insert after the change had already ended the user's
    // sessions. The session goes in only once that check has passed, and the sign-in is recorded with it.
    return this.write(async (trx) => {
      const signedIn = await runPrepared(
        trx,
        this.capabilities,
        trx
          .updateTable('users')
          .set({ last_sign_in_at: session.createdAt.getTime() })
          .where('id', '=', session.userId)
          .where('password_hash', '=', passwordHash)
          .where('disabled_at', 'is', null),
      );
      if (!signedIn.numAffectedRows) return false;
      await insertTogether(trx, this.capabilities, [
        trx.insertInto('sessions').values(toSessionRow(session)),
        auditInsert(trx, audit, session.userId),
      ]);
      return true;
    }, UNFLUSHED);
  }

  async getSessionAndUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null> {
    const [row] = await this.queries.sessionAndUser.execute(this.db, tokenHash);
    if (!row) return null;
    const session = fromSessionRow({
      token_hash: row.session_token_hash,
      user_id: row.id,
      created_at: row.session_created_at,
      expires_at: row.session_expires_at,
      last_seen_at: row.session_last_seen_at,
      id: row.session_id,
      authenticated_at: row.session_authenticated_at,
      ip: row.session_ip,
      user_agent: row.session_user_agent,
      second_factor: row.session_second_factor,
    });
    return { session, user: fromUserRow(row) };
  }

  checkSession(tokenHash: string, access?: AccessQuery): Awaitable<SessionCheck | null> {
    // Not async: on SQLite the read is synchronous (`readDirect`), and this runs on every authenticated request: the
    // answer is then the value, not a promise of it.
    try {
      if (!access) return whenReady(this.queries.sessionCheck.execute(this.db, tokenHash), fromSessionCheck);
      const query =
        access.kind === 'role' ? this.queries.sessionCheckWithRole : this.queries.sessionCheckWithPermission;
      return whenReady(query.execute(this.db, tokenHash, access.name, access.name), fromSessionCheckWithAccess);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async touchSession(tokenHash: string, lastSeenAt: Date): Promise<void> {
    await this.write(
      (trx) =>
        trx
          .updateTable('sessions')
          .set({ last_seen_at: lastSeenAt.getTime() })
          .where('token_hash', '=', tokenHash)
          .execute(),
      UNFLUSHED_STATEMENT,
    );
  }

  async deleteSession(tokenHash: string, audit?: NewAuditEvent): Promise<void> {
    await this.write(async (trx) => {
      const ended = await trx
        .deleteFrom('sessions')
        .where('token_hash', '=', tokenHash)
        .returning('user_id')
        .executeTakeFirst();
      if (ended) await insertAudit(trx, audit, ended.user_id);
    });
  }

  async deleteUserSessions(userId: string, audit?: NewAuditEvent): Promise<number> {
    if (userId.includes('\u0000')) return 0;
    return this.write(async (trx) => {
      // The user row first (the lock order): a login under way commits its session before, or finds this one done.
      const user = await this.lockedRecipient(trx, userId);
      const ended = await trx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
      const count = Number(ended.numDeletedRows);
      // Ending every session leaves no change of address waiting either (the "it was not me" button).
      await dropEmailChange(trx, userId, changeInstant(audit));
      if (user) await insertAudit(trx, audit, userId, { sessions_ended: count });
      return count;
    });
  }

  async listSessions(userId: string): Promise<StoredSession[]> {
    const rows = await this.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();
    // Sorted in JS, so that ties on `createdAt` never depend on a database collation (see `sortNames`).
    return rows.map(fromSessionRow).sort(newestSessionFirst);
  }

  async deleteSessionById(userId: string, sessionId: string, audit?: NewAuditEvent): Promise<boolean> {
    // The id comes from a URL: PostgreSQL text cannot hold NUL, so no stored id has one (see `findUserWith`).
    if (sessionId.includes('\u0000')) return false;
    return this.write(async (trx) => {
      const result = await trx
        .deleteFrom('sessions')
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async deleteOtherSessions(userId: string, keepTokenHash: string, audit?: NewAuditEvent): Promise<number> {
    // A login committing meanwhile keeps its session, as if it had come just after: the one order that can be.
    return this.write(async (trx) => {
      // The user row first (the lock order): a confirmation of the pending change, which locks it before the change
      // and the sessions, queues here instead of deadlocking.
      await this.lockedRecipient(trx, userId);
      const result = await trx
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .where('token_hash', '<>', keepTokenHash)
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      const kept = await trx
        .selectFrom('sessions')
        .select('id')
        .where('token_hash', '=', keepTokenHash)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      await dropEmailChange(trx, userId, changeInstant(audit), kept?.id ?? null);
      if (audit && (await recipientOf(trx, userId))) {
        await insertAudit(trx, audit, userId, { sessions_ended: count });
      }
      return count;
    });
  }

  async markSessionAuthenticated(
    tokenHash: string,
    passwordHash: string,
    at: Date,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    return this.write(async (trx) => {
      // The user row first (the lock order), FOR SHARE: a password change or reset under way finishes first, and
      // the hash is then judged as it left it (and the session is gone with it).
      const holder = await trx
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select('u.id')
        .where('s.token_hash', '=', tokenHash)
        .where('u.password_hash', '=', passwordHash)
        .$if(this.capabilities.rowLocks, (query) => query.forShare('u'))
        .executeTakeFirst();
      if (!holder) return false;
      const result = await trx
        .updateTable('sessions')
        .set({ authenticated_at: at.getTime() })
        .where('token_hash', '=', tokenHash)
        .where('user_id', '=', holder.id)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await insertAudit(trx, audit, holder.id);
      return true;
    });
  }

  async requestEmailChange(
    change: StoredEmailChange,
    messages: EmailChangeMessages,
    sessionTokenHash: string,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeRequestResult> {
    return this.write(async (trx): Promise<EmailChangeRequestResult> => {
      // The user row first: concurrent requests of one user queue here (one pending change each), and a deletion,
      // reset or change that ends the asking session finishes first.
      const user = await trx
        .selectFrom('users')
        .select(['id', 'username', 'email'])
        .where('id', '=', change.userId)
        .$if(this.capabilities.rowLocks, (query) => query.forNoKeyUpdate())
        .executeTakeFirst();
      if (!user) return { ok: false };
      if (!(await sessionStillOpen(trx, sessionTokenHash, user.id, this.capabilities.rowLocks))) return { ok: false };

      await trx.deleteFrom('email_changes').where('user_id', '=', user.id).execute();
      await trx.insertInto('email_changes').values(toEmailChangeRow(change)).execute();
      // The earlier change's link died with its row, whichever path this request takes.
      await supersedeMessages(trx, user.id, 'emailChange', change.createdAt);
      const owner = await verifiedOwnerOf(trx, change.newEmailKey, user.id);
      if (owner) await insertMessage(trx, messages.ownerNotice, owner);
      else await insertMessage(trx, messages.link, { ...user, email: change.newEmail });
      await insertMessage(trx, messages.requestedNotice, user);
      await insertAudit(trx, audit, user.id);
      return { ok: true, addressOwned: owner !== undefined };
    });
  }

  async findEmailChange(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null> {
    const row = await this.db
      .selectFrom('email_changes as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select(USER_COLUMNS.map((column) => `u.${column}` as const))
      .select([
        'c.new_email as change_new_email',
        'c.new_email_key as change_new_email_key',
        'c.created_at as change_created_at',
        'c.expires_at as change_expires_at',
        'c.end_other_sessions as change_end_other_sessions',
        'c.keep_session_id as change_keep_session_id',
      ])
      .where('c.token_hash', '=', tokenHash)
      .where('c.expires_at', '>', now.getTime())
      .executeTakeFirst();
    if (!row) return null;
    const change = fromEmailChangeRow({
      token_hash: tokenHash,
      user_id: row.id,
      new_email: row.change_new_email,
      new_email_key: row.change_new_email_key,
      created_at: row.change_created_at,
      expires_at: row.change_expires_at,
      end_other_sessions: row.change_end_other_sessions,
      keep_session_id: row.change_keep_session_id,
    });
    return { change, user: fromUserRow(row) };
  }

  async confirmEmailChange(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeResult> {
    // A unique violation means another account became the verified owner of the address while we ran (PostgreSQL,
    // where that account's transaction locked other rows than ours); the next attempt finds that owner: `taken`.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(async (trx) => {
          const result = await this.changeAddress(trx, tokenHash, now, message);
          if (result.outcome === 'changed') await insertAudit(trx, audit, result.user.id);
          return result;
        });
      } catch (error) {
        if (attempt >= 3 || !this.capabilities.isUniqueViolation(error)) throw error;
      }
    }
  }

  async deleteExpired(cutoffs: ExpiryCutoffs): Promise<number> {
    const { now, sessionIdleBefore, unverifiedCreatedBefore, outboxChangedBefore, auditBefore } = cutoffs;
    // In batches, each its own short transaction, so that a large backlog never holds a lock (SQLite: the whole
    // database) for long (`deleteInBatches`, `batch`). The expiry columns are indexed, so each batch is found without
    // a scan.
    let deleted = 0;
    if (unverifiedCreatedBefore) {
      deleted += await this.deleteInBatches(async (trx) => {
        const expired = await trx
          .selectFrom('users')
          .select('id')
          .where('verified', '=', 0)
          .where('created_at', '<=', unverifiedCreatedBefore.getTime())
          .$call(this.batch)
          .execute();
        return deleteUsersWithDependents(
          trx,
          expired.map((user) => user.id),
        );
      });
    }
    for (const table of ['sessions', 'tokens'] as const) {
      deleted += await this.deleteInBatches(async (trx) => {
        const result = await trx
          .deleteFrom(table)
          .where('token_hash', 'in', (eb) =>
            eb
              .selectFrom(table)
              .select('token_hash')
              .where((eb) =>
                table === 'sessions'
                  ? eb.or([
                      eb('expires_at', '<=', now.getTime()),
                      eb('last_seen_at', '<=', sessionIdleBefore.getTime()),
                    ])
                  : eb('expires_at', '<=', now.getTime()),
              )
              .$call(this.batch),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    }
    for (const table of ['email_changes', 'login_challenges'] as const) {
      deleted += await this.deleteInBatches(async (trx) => {
        const result = await trx
          .deleteFrom(table)
          .where('token_hash', 'in', (eb) =>
            eb.selectFrom(table).select('token_hash').where('expires_at', '<=', now.getTime()).$call(this.batch),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    }
    if (outboxChangedBefore) {
      deleted += await this.deleteInBatches(async (trx) => {
        const result = await trx
          .deleteFrom('outbox')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('outbox')
              .select('id')
              .where('status', 'in', ['sent', 'failed'])
              .where('updated_at', '<=', outboxChangedBefore.getTime())
              .$call(this.batch),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    }
    if (auditBefore) {
      // The trail past its retention; `audit_events (at, id)` finds each batch.
      deleted += await this.deleteInBatches(async (trx) => {
        const result = await trx
          .deleteFrom('audit_events')
          .where('id', 'in', (eb) =>
            eb.selectFrom('audit_events').select('id').where('at', '<=', auditBefore.getTime()).$call(this.batch),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    }
    return deleted;
  }

  async getSecondFactor(userId: string): Promise<StoredSecondFactor | null> {
    const row = await this.firstRowBy(this.queries.secondFactorByUser, userId);
    return row ? fromSecondFactorRow(row) : null;
  }

  async startSecondFactor(factor: StoredSecondFactor): Promise<boolean> {
    return this.write(async (trx) => {
      // The user row first (the lock order): concurrent starts, an enabling and a deletion of the user queue here.
      const user = await trx
        .selectFrom('users')
        .select('id')
        .where('id', '=', factor.userId)
        .$if(this.capabilities.rowLocks, (query) => query.forNoKeyUpdate())
        .executeTakeFirst();
      if (!user) return false;
      const replaced = await trx
        .deleteFrom('second_factors')
        .where('user_id', '=', factor.userId)
        .where('enabled', '=', 0)
        .executeTakeFirst();
      if (replaced.numDeletedRows === 0n && (await secondFactorOf(trx, factor.userId))) return false;
      await trx.insertInto('second_factors').values(toSecondFactorRow(factor)).execute();
      return true;
    });
  }

  async enableSecondFactor(
    enabling: SecondFactorEnabling,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const { userId, sessionTokenHash } = enabling;
    return this.write(async (trx) => {
      // The user row first, as `startSecondFactor` locks it: a start and this enabling of one user run one after the
      // other, and the compare-and-set on the sealed secret sees what the other left.
      const recipient = await this.lockedRecipient(trx, userId);
      if (!recipient) return false;
      const enabled = await trx
        .updateTable('second_factors')
        .set({ enabled: 1, enabled_at: enabling.now.getTime(), last_used_step: enabling.step })
        .where('user_id', '=', userId)
        .where('enabled', '=', 0)
        .where('sealed_secret', '=', enabling.sealedSecret)
        .executeTakeFirst();
      if (enabled.numUpdatedRows === 0n) return false;
      await replaceCodes(trx, userId, enabling.recoveryCodeHashes, enabling.now);
      if (sessionTokenHash !== undefined) {
        await trx
          .updateTable('sessions')
          .set({ second_factor: 1 })
          .where('token_hash', '=', sessionTokenHash)
          .where('user_id', '=', userId)
          .execute();
      }
      let ended: number | undefined;
      if (enabling.endOtherSessions) {
        const deleted = await trx
          .deleteFrom('sessions')
          .where('user_id', '=', userId)
          .$if(sessionTokenHash !== undefined, (query) => query.where('token_hash', '<>', sessionTokenHash!))
          .executeTakeFirst();
        ended = Number(deleted.numDeletedRows);
      }
      await insertMessage(trx, message, recipient);
      await insertAudit(trx, audit, userId, ended === undefined ? undefined : { sessions_ended: ended });
      return true;
    });
  }

  async useTotpStep(userId: string, step: number): Promise<boolean> {
    // One conditional update, a compare-and-set on the last used step: of concurrent uses of one step (on any
    // instance), the database lets exactly one change the row.
    const result = await this.write((trx) =>
      trx
        .updateTable('second_factors')
        .set({ last_used_step: step })
        .where('user_id', '=', userId)
        .where('enabled', '=', 1)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
        .executeTakeFirst(),
    );
    return result.numUpdatedRows > 0n;
  }

  async consumeRecoveryCode(
    userId: string,
    codeHash: string,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    return this.write(async (trx) => {
      const recipient = await this.lockedRecipient(trx, userId);
      if (!recipient) return false;
      // The deletion is the claim: only the caller whose DELETE removed the row queues the notice.
      const used = await trx
        .deleteFrom('recovery_codes')
        .where('code_hash', '=', codeHash)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (used.numDeletedRows === 0n) return false;
      await insertMessage(trx, message, recipient);
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async replaceRecoveryCodes(
    userId: string,
    recoveryCodeHashes: readonly string[],
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    return this.write(async (trx) => {
      // The user row is locked first, so a disabling or a deletion under way has finished when the factor is judged.
      const recipient = await this.lockedRecipient(trx, userId);
      if (!recipient) return false;
      if (!(await secondFactorOf(trx, userId))?.enabled) return false;
      await replaceCodes(trx, userId, recoveryCodeHashes, now);
      await insertMessage(trx, message, recipient);
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async disableSecondFactor(
    userId: string,
    _now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    return this.write(async (trx) => {
      const recipient = await this.lockedRecipient(trx, userId);
      if (!recipient) return false;
      const removed = await trx.deleteFrom('second_factors').where('user_id', '=', userId).executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('login_challenges').where('user_id', '=', userId).execute();
      await insertMessage(trx, message, recipient);
      await insertAudit(trx, audit, userId);
      return true;
    });
  }

  async createLoginChallenge(challenge: StoredLoginChallenge, audit?: NewAuditEvent): Promise<void> {
    await this.write(async (trx) => {
      await trx.insertInto('login_challenges').values(toLoginChallengeRow(challenge)).execute();
      await insertAudit(trx, audit, challenge.userId);
    });
  }

  async findLoginChallenge(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null> {
    const row = await this.db
      .selectFrom('login_challenges')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromLoginChallengeRow(row) : null;
  }

  async takeLoginChallengeAttempt(
    tokenHash: string,
    now: Date,
    maxAttempts: number,
  ): Promise<StoredLoginChallenge | null> {
    // One conditional update: the database counts concurrent answers one after the other, so never more than
    // `maxAttempts` of them find the condition true.
    const row = await this.write((trx) =>
      trx
        .updateTable('login_challenges')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now.getTime())
        .where('attempts', '<', maxAttempts)
        .returningAll()
        .executeTakeFirst(),
    );
    return row ? fromLoginChallengeRow(row) : null;
  }

  async consumeLoginChallenge(tokenHash: string): Promise<boolean> {
    const result = await this.write((trx) =>
      trx.deleteFrom('login_challenges').where('token_hash', '=', tokenHash).executeTakeFirst(),
    );
    return result.numDeletedRows > 0n;
  }

  // Inserts that may meet the row already there say so with ON CONFLICT DO NOTHING rather than by failing: the
  // transaction goes on to write its audit event, and a unique violation of anything else is still an error.

  async createRole(name: string, audit?: NewAuditEvent): Promise<boolean> {
    return this.write(async (trx) => {
      const created = await trx
        .insertInto('roles')
        .values({ name })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      if (Number(created.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await insertAudit(trx, audit);
      return true;
    });
  }

  async createPermission(name: string, audit?: NewAuditEvent): Promise<boolean> {
    return this.write(async (trx) => {
      const created = await trx
        .insertInto('permissions')
        .values({ name })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      if (Number(created.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await insertAudit(trx, audit);
      return true;
    });
  }

  async grantPermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    return this.write(async (trx) => {
      await this.capabilities.lockAccessChanges?.(trx);
      const unknown = await unknownRoleOrPermission(trx, role, permission);
      if (unknown) return unknown;
      if (grantor !== undefined) {
        if (await holdsRole(trx, grantor, role)) return 'own_access';
        if ((await permissionsNotHeld(trx, grantor, [permission])).length > 0) return 'not_held';
      }
      await trx
        .insertInto('role_permissions')
        .values({ role, permission })
        .onConflict((oc) => oc.columns(['role', 'permission']).doNothing())
        .execute();
      await insertAudit(trx, audit);
      return 'ok';
    });
  }

  async revokePermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    return this.write(async (trx) => {
      await this.capabilities.lockAccessChanges?.(trx);
      const unknown = await unknownRoleOrPermission(trx, role, permission);
      if (unknown) return unknown;
      if (grantor !== undefined && (await holdsRole(trx, grantor, role))) return 'own_access';
      await trx.deleteFrom('role_permissions').where('role', '=', role).where('permission', '=', permission).execute();
      await insertAudit(trx, audit);
      return 'ok';
    });
  }

  async grantRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    return this.write(async (trx) => {
      await this.capabilities.lockAccessChanges?.(trx);
      const unknown = await unknownUserOrRole(trx, userId, role, this.capabilities.rowLocks);
      if (unknown) return unknown;
      if (grantor !== undefined) {
        if (grantor === userId) return 'own_access';
        const carried = await trx
          .selectFrom('role_permissions')
          .select('permission')
          .where('role', '=', role)
          .execute();
        const missing = await permissionsNotHeld(
          trx,
          grantor,
          carried.map((row) => row.permission),
        );
        if (missing.length > 0) return 'not_held';
      }
      await trx
        .insertInto('user_roles')
        .values({ user_id: userId, role })
        .onConflict((oc) => oc.columns(['user_id', 'role']).doNothing())
        .execute();
      await insertAudit(trx, audit, userId);
      return 'ok';
    });
  }

  async revokeRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    keepLastHolder = false,
    grantor?: string,
  ): Promise<RevokeRoleResult | AccessChangeRefusal> {
    return this.write(async (trx) => {
      await this.capabilities.lockAccessChanges?.(trx);
      const unknown = await unknownUserOrRole(trx, userId, role, this.capabilities.rowLocks);
      if (unknown) return unknown;
      if (grantor !== undefined && grantor === userId) return 'own_access';
      if (keepLastHolder && (await this.isLastEnabledHolder(trx, userId, role))) return 'last_holder';
      await trx.deleteFrom('user_roles').where('user_id', '=', userId).where('role', '=', role).execute();
      await insertAudit(trx, audit, userId);
      return 'ok';
    });
  }

  async checkRole(userId: string, role: string): Promise<AccessAnswer> {
    // One query on the request path: the role's row (absent: unknown) and the user's grant of it, if any.
    const [row] = await this.queries.role.execute(this.db, userId, role);
    if (!row) return 'unknown';
    return row.holder === null ? 'denied' : 'granted';
  }

  async checkPermission(userId: string, permission: string): Promise<AccessAnswer> {
    // One query on the request path: the permission's row (absent: unknown) and whether a role of the user carries it.
    const [row] = await this.queries.permission.execute(this.db, userId, permission);
    if (!row) return 'unknown';
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    return row.granted ? 'granted' : 'denied';
  }

  async listRoles(): Promise<RoleSummary[]> {
    const rows = await this.db
      .selectFrom('roles as r')
      .leftJoin('role_permissions as rp', 'rp.role', 'r.name')
      .select(['r.name as role', 'rp.permission'])
      .execute();
    const permissionsByRole = new Map<string, string[]>();
    for (const { role, permission } of rows) {
      const permissions = permissionsByRole.get(role) ?? [];
      if (permission !== null) permissions.push(permission);
      permissionsByRole.set(role, permissions);
    }
    return sortNames([...permissionsByRole.keys()]).map((name) => ({
      name,
      permissions: sortNames(permissionsByRole.get(name) ?? []),
    }));
  }

  async listPermissions(): Promise<string[]> {
    const rows = await this.db.selectFrom('permissions').select('name').execute();
    return sortNames(rows.map((row) => row.name));
  }

  async listUserRoles(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('user_roles').select('role').where('user_id', '=', userId).execute();
    return sortNames(rows.map((row) => row.role));
  }

  async enqueueMessage(userId: string, message: NewOutboxMessage): Promise<boolean> {
    return this.write(async (trx) => {
      const recipient = await recipientOf(trx, userId);
      if (!recipient) return false;
      await insertMessage(trx, message, recipient);
      return true;
    });
  }

  // The claim and the marks below may commit without waiting for the disk (`UNFLUSHED_STATEMENT`): the message itself
  // was queued durably with the change that caused it, and losing one of these to a power cut only sends it again.
  async claimDueMessages(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
    if (limit < 1) return [];
    const claimId = randomUUID();
    // Pick, then claim, in one statement. Where rows are locked (PostgreSQL), FOR UPDATE SKIP LOCKED lets concurrent
    // workers take disjoint batches instead of queuing for the same rows, and holds the picked ones until the claim
    // commits. The pick is a MATERIALIZED common table expression, evaluated once: as a plain `IN (SELECT ... LIMIT n
    // FOR UPDATE SKIP LOCKED)`, PostgreSQL may evaluate it more than once and then claim more than n. SQLite has one
    // writer at a time, so claims cannot overlap there.
    const { rows } = await this.write(
      (trx) =>
        runPrepared(
          trx,
          this.capabilities,
          trx
            .with(
              (cte) => cte('picked').materialized(),
              (db) =>
                db
                  .selectFrom('outbox')
                  .select('id')
                  .where('status', '=', 'pending')
                  .where('next_attempt_at', '<=', now.getTime())
                  .orderBy('next_attempt_at')
                  .orderBy('created_at')
                  .limit(limit)
                  .$if(this.capabilities.rowLocks, (query) => query.forUpdate().skipLocked()),
            )
            .updateTable('outbox')
            .set((eb) => ({
              claim_id: claimId,
              attempts: eb('attempts', '+', 1),
              next_attempt_at: leaseUntil.getTime(),
              updated_at: now.getTime(),
            }))
            .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
            .returning(OUTBOX_COLUMNS),
        ),
      UNFLUSHED_STATEMENT,
    );
    // One claim id for the batch is enough: it is new, and only this worker knows it.
    return rows.map(claimedFromOutboxRow).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async markMessageSent(id: string, now: Date): Promise<boolean> {
    const result = await this.write(
      (trx) =>
        runPrepared(
          trx,
          this.capabilities,
          trx
            .updateTable('outbox')
            .set({
              status: 'sent',
              sealed_token: null,
              claim_id: null,
              last_error: null,
              sent_at: now.getTime(),
              updated_at: now.getTime(),
            })
            .where('id', '=', id)
            .where('status', '=', 'pending'),
        ),
      UNFLUSHED_STATEMENT,
    );
    return Boolean(result.numAffectedRows);
  }

  async markMessageRetry(
    id: string,
    claimId: string,
    nextAttemptAt: Date,
    lastError: string,
    now: Date,
  ): Promise<boolean> {
    return this.endClaim(id, claimId, {
      next_attempt_at: nextAttemptAt.getTime(),
      last_error: lastError,
      updated_at: now.getTime(),
    });
  }

  async markMessageFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean> {
    return this.endClaim(id, claimId, {
      status: 'failed',
      sealed_token: null,
      last_error: lastError,
      updated_at: now.getTime(),
    });
  }

  /** Ends the claim `claimId` on message `id` with `changes`; false when that claim no longer holds it. */
  private async endClaim(id: string, claimId: string, changes: Updateable<OutboxTable>): Promise<boolean> {
    const result = await this.write(
      (trx) =>
        trx
          .updateTable('outbox')
          .set({ ...changes, claim_id: null })
          .where('id', '=', id)
          .where('claim_id', '=', claimId)
          .where('status', '=', 'pending')
          .executeTakeFirst(),
      UNFLUSHED_STATEMENT,
    );
    return result.numUpdatedRows > 0n;
  }

  async listMessages(query: OutboxQuery = {}): Promise<OutboxEntry[]> {
    const rows = await this.db
      .selectFrom('outbox')
      .selectAll()
      .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!))
      .orderBy('created_at', 'desc')
      .limit(query.limit ?? 100)
      .execute();
    return rows.map(fromOutboxRow);
  }

  async retryMessages(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number> {
    const notices = OUTBOX_KINDS.filter((kind) => !carriesLink(kind));
    const at = now.getTime();
    return this.write(async (trx) => {
      const revived = await trx
        .updateTable('outbox')
        .set({
          status: 'pending',
          attempts: 0,
          claim_id: null,
          next_attempt_at: at,
          give_up_at: giveUpAt.getTime(),
          updated_at: at,
        })
        .where('status', '=', 'failed')
        .where('kind', 'in', notices)
        .$if('id' in target, (q) => q.where('id', '=', (target as { id: string }).id))
        .executeTakeFirst();
      if (!('id' in target) || revived.numUpdatedRows > 0n) return Number(revived.numUpdatedRows);
      // A pending message no worker holds (or whose holder's lease ran out) becomes due now.
      const hurried = await trx
        .updateTable('outbox')
        .set({ claim_id: null, next_attempt_at: at, updated_at: at })
        .where('id', '=', target.id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claim_id', 'is', null), eb('next_attempt_at', '<=', at)]))
        .executeTakeFirst();
      return Number(hurried.numUpdatedRows);
    });
  }

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    return listUsers(this.db, query);
  }

  async getUserDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null> {
    if (userId.includes('\u0000')) return null;
    // One transaction, the user row first and shared: a login, disable, deletion or password change of the user
    // (each locks that row) commits before it or after it, never halfway through what it reads.
    return this.write(async (trx) => {
      const row = await trx
        .selectFrom('users as u')
        .select(USER_COLUMNS.map((column) => `u.${column}` as const))
        .where('u.id', '=', userId)
        .$if(this.capabilities.rowLocks, (query) => query.forShare())
        .executeTakeFirst();
      if (!row) return null;
      const roles = await trx.selectFrom('user_roles').select('role').where('user_id', '=', userId).execute();
      const permissions = await trx
        .selectFrom('role_permissions as rp')
        .innerJoin('user_roles as ur', 'ur.role', 'rp.role')
        .select('rp.permission')
        .distinct()
        .where('ur.user_id', '=', userId)
        .execute();
      const factor = await trx
        .selectFrom('second_factors')
        .select('enabled')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      const live = await trx
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now.getTime())
        .where('last_seen_at', '>', sessionIdleBefore.getTime())
        .executeTakeFirstOrThrow();
      return {
        user: fromUserRow(row),
        lastSignInAt: row.last_sign_in_at === null ? null : new Date(Number(row.last_sign_in_at)),
        roles: sortNames(roles.map((grant) => grant.role)),
        permissions: sortNames(permissions.map((grant) => grant.permission)),
        secondFactor: Boolean(factor?.enabled),
        liveSessions: Number(live.n),
      };
    });
  }

  async disableUser(
    userId: string,
    at: Date,
    audit?: NewAuditEvent,
    keepLastHolderOf?: string,
  ): Promise<ProtectedChangeResult> {
    if (userId.includes('\u0000')) return 'unknown_user';
    return this.write(async (trx): Promise<ProtectedChangeResult> => {
      // The user row first, FOR UPDATE (the lock order): a login under way (its UPDATE of this row) commits its
      // session first, which is then deleted here, or waits and then finds the account disabled.
      const user = await trx
        .selectFrom('users')
        .select(['id', 'disabled_at'])
        .where('id', '=', userId)
        .$if(this.capabilities.rowLocks, (query) => query.forUpdate())
        .executeTakeFirst();
      if (!user) return 'unknown_user';
      if (user.disabled_at === null) {
        if (keepLastHolderOf !== undefined && (await this.isLastEnabledHolder(trx, userId, keepLastHolderOf))) {
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
      await insertAudit(trx, audit, userId);
      return 'ok';
    });
  }

  async enableUser(userId: string, now: Date, audit?: NewAuditEvent): Promise<'ok' | 'unknown_user'> {
    if (userId.includes('\u0000')) return 'unknown_user';
    return this.write(async (trx) => {
      if (!(await this.lockedRecipient(trx, userId))) return 'unknown_user';
      await trx
        .updateTable('users')
        .set({ disabled_at: null, updated_at: now.getTime() })
        .where('id', '=', userId)
        .where('disabled_at', 'is not', null)
        .execute();
      await insertAudit(trx, audit, userId);
      return 'ok';
    });
  }

  async markUserVerified(userId: string, now: Date, audit?: NewAuditEvent): Promise<MarkVerifiedResult> {
    if (userId.includes('\u0000')) return 'unknown_user';
    // As `verifyEmail`: a unique violation means another registration of the address became its owner while we ran;
    // the second attempt finds that owner.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write((trx) => this.verifyAsAdmin(trx, userId, now, audit));
      } catch (error) {
        if (attempt >= 2 || !this.capabilities.isUniqueViolation(error)) throw error;
      }
    }
  }

  async deleteUserAsAdmin(
    userId: string,
    keepLastHolderOf?: string,
    audit?: NewAuditEvent,
    message?: NewOutboxMessage,
  ): Promise<ProtectedChangeResult> {
    if (userId.includes('\u0000')) return 'unknown_user';
    return this.write(async (trx): Promise<ProtectedChangeResult> => {
      const recipient = await trx
        .selectFrom('users')
        .select(['id', 'username', 'email'])
        .where('id', '=', userId)
        .$if(this.capabilities.rowLocks, (query) => query.forUpdate())
        .executeTakeFirst();
      if (!recipient) return 'unknown_user';
      if (keepLastHolderOf !== undefined && (await this.isLastEnabledHolder(trx, userId, keepLastHolderOf))) {
        return 'last_holder';
      }
      await insertMessage(trx, message, recipient);
      await failPendingLinks(trx, [userId], changeInstant(audit, message));
      await deleteUsersWithDependents(trx, [userId]);
      await insertAudit(trx, audit, userId);
      return 'ok';
    });
  }

  async appendAuditEvent(event: NewAuditEvent & { subjectId: string | null }): Promise<void> {
    await this.write((trx) => insertAudit(trx, event));
  }

  async listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    return listAuditEvents(this.db, query);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.destroy();
    await this.capabilities.close?.();
  }

  /** `verifyEmail`'s transaction: the token's registration becomes the address's owner, and the others end. */
  private async confirmRegistration(
    trx: Kysely<Database>,
    tokenHash: string,
    now: Date,
    message: NewOutboxMessage | undefined,
  ): Promise<StoredUser | null> {
    const claim = await trx
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select('u.email_key')
      .where('t.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!claim) return null;
    const emailKey = claim.email_key;
    if (this.capabilities.rowLocks) {
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
    await insertMessage(trx, message, row);
    return fromUserRow(row);
  }

  /** `markUserVerified`'s transaction: the user becomes its address's owner, as through its link. */
  private async verifyAsAdmin(
    trx: Kysely<Database>,
    userId: string,
    now: Date,
    audit: NewAuditEvent | undefined,
  ): Promise<MarkVerifiedResult> {
    const claim = await trx.selectFrom('users').select('email_key').where('id', '=', userId).executeTakeFirst();
    if (!claim) return 'unknown_user';
    if (this.capabilities.rowLocks) {
      // The user and every registration of its address, in one order (by id, as `verifyEmail` takes them).
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
    await insertAudit(trx, audit, userId);
    return 'verified';
  }

  /**
   * Whether the user holds the role and no other enabled user does. Where writers lock rows, the role's row is locked
   * first (after the user's, the lock order): the protected changes of one role (revoke, disable, delete) queue here,
   * and each then counts the holders as the one before it left them, so two of them cannot remove the last two.
   */
  private async isLastEnabledHolder(trx: Kysely<Database>, userId: string, role: string): Promise<boolean> {
    if (this.capabilities.rowLocks) {
      await trx.selectFrom('roles').select('name').where('name', '=', role).forNoKeyUpdate().execute();
    }
    const holds = await trx
      .selectFrom('user_roles')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('role', '=', role)
      .executeTakeFirst();
    if (!holds) return false;
    const other = await trx
      .selectFrom('user_roles as ur')
      .innerJoin('users as u', 'u.id', 'ur.user_id')
      .select('u.id')
      .where('ur.role', '=', role)
      .where('ur.user_id', '<>', userId)
      .where('u.disabled_at', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return other === undefined;
  }

  /** `confirmEmailChange`'s transaction: the change's address becomes its user's, unless another owns it by now. */
  private async changeAddress(
    trx: Kysely<Database>,
    tokenHash: string,
    now: Date,
    message: NewOutboxMessage | undefined,
  ): Promise<EmailChangeResult> {
    const pending = await trx
      .selectFrom('email_changes')
      .select(['user_id', 'new_email_key'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!pending) return { outcome: 'invalid' };
    const { user_id: userId, new_email_key: emailKey } = pending;
    if (this.capabilities.rowLocks) {
      // The user and every registration of the new address, in one order (by id, as `verifyEmail` takes them),
      // before the change itself: a confirmation of the same token, another account's confirmation of the same
      // address and a verification of a registration of it queue here instead of deadlocking, and the later one then
      // finds the change gone, or the owner.
      await trx
        .selectFrom('users')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', userId), eb('email_key', '=', emailKey)]))
        .orderBy('id')
        .forUpdate()
        .execute();
    }
    const consumed = await trx
      .deleteFrom('email_changes')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    if (!consumed) return { outcome: 'invalid' };
    const change = fromEmailChangeRow(consumed);
    if (await verifiedOwnerOf(trx, change.newEmailKey, change.userId)) return { outcome: 'taken' };

    const previous = await recipientOf(trx, change.userId);
    // The change went with its user, so a consumed change always has one; this only narrows the type.
    if (!previous) return { outcome: 'invalid' };
    const row = await trx
      .updateTable('users')
      .set({ email: change.newEmail, email_key: change.newEmailKey, updated_at: now.getTime() })
      .where('id', '=', change.userId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const others = await trx
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', change.newEmailKey)
      .where('verified', '=', 0)
      .where('id', '<>', change.userId)
      .execute();
    await endRegistrations(
      trx,
      others.map((other) => other.id),
      now,
    );
    // Reset links went to the old address: those not sent yet are not sent at all.
    await deleteTokensOf(trx, change.userId, 'reset_password');
    await supersedeMessages(trx, change.userId, 'passwordReset', now);
    let endedSessions = 0;
    if (change.endOtherSessions) {
      const ended = await trx
        .deleteFrom('sessions')
        .where('user_id', '=', change.userId)
        .$if(change.keepSessionId !== null, (query) => query.where('id', '<>', change.keepSessionId!))
        .executeTakeFirst();
      endedSessions = Number(ended.numDeletedRows);
    }
    await insertMessage(trx, message, previous);
    return { outcome: 'changed', user: fromUserRow(row), previousEmail: previous.email, endedSessions };
  }

  /**
   * The user as a recipient, its row locked first where writers lock rows (the lock order, see `lockUser`): the
   * second factor's changes of one user queue here, behind a deletion, reset or change under way.
   */
  private async lockedRecipient(trx: Kysely<Database>, userId: string): Promise<Recipient | null> {
    const row = await trx
      .selectFrom('users')
      .select(['id', 'username', 'email'])
      .where('id', '=', userId)
      .$if(this.capabilities.rowLocks, (query) => query.forNoKeyUpdate())
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Runs `deleteBatch` (which deletes at most `CLEANUP_BATCH_SIZE` rows and says how many) in a transaction of its
   * own, again and again, until a batch comes back short; returns how many rows went in all.
   */
  private async deleteInBatches(deleteBatch: (trx: Kysely<Database>) => Promise<number>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.write(deleteBatch);
      deleted += batch;
      if (batch < CLEANUP_BATCH_SIZE) return deleted;
    }
  }

  /**
   * One clean-up batch of a select: at most `CLEANUP_BATCH_SIZE` rows and, where rows are locked, only those no other
   * instance's clean-up holds (SKIP LOCKED), so instances take disjoint batches instead of waiting on each other.
   */
  private readonly batch = <TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>) =>
    query.limit(CLEANUP_BATCH_SIZE).$if(this.capabilities.rowLocks, (locked) => locked.forUpdate().skipLocked());

  private write<T>(work: (trx: Kysely<Database>) => Promise<T>, options?: WriteOptions): Promise<T> {
    return this.capabilities.writeTransaction(this.db, work, options);
  }

  private async findUserWith(query: RequestPathQueries['userById'], value: string): Promise<StoredUser | null> {
    const row = await this.firstRowBy(query, value);
    return row ? fromUserRow(row) : null;
  }

  /** The first row of a request-path read by one text value. */
  private async firstRowBy<Row>(query: PrecompiledQuery<[string], Row>, value: string): Promise<Row | undefined> {
    // Some are looked up with text as typed (a username at login). PostgreSQL text cannot hold NUL, so no stored key
    // has one, and asking would be an error there rather than the absence it is everywhere.
    if (value.includes('\u0000')) return undefined;
    const [row] = await query.execute(this.db, value);
    return row;
  }
}

/**
 * Claims a token: exactly one of several concurrent callers gets the user id, the others get null. With `rowLocks`,
 * the token's user is locked first (see `lockUser`).
 */
async function consumeToken(
  trx: Kysely<Database>,
  tokenHash: string,
  purpose: TokenPurpose,
  now: Date,
  rowLocks: boolean,
): Promise<string | null> {
  if (rowLocks) {
    const owner = await trx
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select('u.id')
      .where('t.token_hash', '=', tokenHash)
      .forNoKeyUpdate('u')
      .executeTakeFirst();
    if (!owner) return null;
  }
  const claimed = await trx
    .deleteFrom('tokens')
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('expires_at', '>', now.getTime())
    .returning('user_id')
    .executeTakeFirst();
  return claimed?.user_id ?? null;
}

/**
 * Conditional on the hash the caller verified against, so a password changed meanwhile is never overwritten. Returns
 * who the user is now (for a message), or null when nothing was replaced.
 */
async function replacePasswordHash(
  trx: Kysely<Database>,
  userId: string,
  expectedHash: string,
  newPasswordHash: string,
  now: Date,
): Promise<Recipient | null> {
  const row = await trx
    .updateTable('users')
    .set({ password_hash: newPasswordHash, updated_at: now.getTime() })
    .where('id', '=', userId)
    .where('password_hash', '=', expectedHash)
    .returning(['id', 'username', 'email'])
    .executeTakeFirst();
  return row ?? null;
}

/** Whom a message about a user goes to: the user row's id, username and email at the time of the change. */
type Recipient = { id: string; username: string; email: string };

/** The user as a recipient, or null when gone. */
async function recipientOf(trx: Kysely<Database>, userId: string): Promise<Recipient | null> {
  const row = await trx
    .selectFrom('users')
    .select(['id', 'username', 'email'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return row ?? null;
}

/** Queues `message` to `recipient` in the caller's transaction; a taken id fails the whole transaction. */
async function insertMessage(
  trx: Kysely<Database>,
  message: NewOutboxMessage | undefined,
  recipient: Recipient,
): Promise<void> {
  await messageInsert(trx, message, recipient)?.execute();
}

/** The insert `insertMessage` runs, to run with others (`insertTogether`); undefined without a message. */
function messageInsert(
  trx: Kysely<Database>,
  message: NewOutboxMessage | undefined,
  recipient: Recipient,
): PendingInsert | undefined {
  return message ? trx.insertInto('outbox').values(toOutboxRow(message, recipient)) : undefined;
}

/**
 * A new link supersedes the pending messages of the same kind to the user: their tokens were just deleted, so their
 * links are dead. Messages a worker holds right now are left to finish, but never tried again (`giveUpHeld`).
 */
async function supersedeMessages(trx: Kysely<Database>, userId: string, kind: OutboxKind, at: Date): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({
      status: 'failed',
      sealed_token: null,
      last_error: SUPERSEDED_ERROR,
      updated_at: at.getTime(),
    })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('claim_id', 'is', null)
    .execute();
  await giveUpHeld(trx, [userId], at, kind);
}

/**
 * Dead links a worker is sending right now: the send under way cannot be called back, but a failed one is not tried
 * again, as its give-up time becomes `at` (the next claim fails it as expired). Of one kind, or every link.
 */
async function giveUpHeld(trx: Kysely<Database>, userIds: string[], at: Date, kind?: OutboxKind): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({ give_up_at: at.getTime() })
    .where('user_id', 'in', userIds)
    .where('status', '=', 'pending')
    .where('claim_id', 'is not', null)
    .where('give_up_at', '>', at.getTime())
    .$if(kind !== undefined, (query) => query.where('kind', '=', kind!))
    .$if(kind === undefined, (query) => query.where('sealed_token', 'is not', null))
    .execute();
}

/**
 * Where writers lock rows (PostgreSQL), every transaction that changes a user together with their sessions or tokens
 * locks the user row before any of those: one lock order, so two such transactions queue instead of deadlocking (a
 * reset that claimed its token and then wanted the user, against a deletion that held the user and then cascaded to
 * the token). Updating or deleting the user row takes this lock by itself, which is why those statements come first.
 */
async function lockUser(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

/**
 * Whether the session still exists and is the user's. With `rowLocks`, FOR SHARE waits for a logout-all, reset or
 * change that is deleting it right now, and then finds it gone: a write it authorised cannot commit after that
 * answer. (Callers lock the user row first: the lock order.)
 */
async function sessionStillOpen(
  trx: Kysely<Database>,
  tokenHash: string,
  userId: string,
  rowLocks: boolean,
): Promise<boolean> {
  const row = await trx
    .selectFrom('sessions')
    .select('token_hash')
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .$if(rowLocks, (query) => query.forShare())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What every password replacement must do in the same transaction: end all sessions, outstanding resets, the
 * pending change of address and the login challenges (all won with the old password), and fail the links of those
 * resets and that change not sent yet. The second factor and its recovery codes stay: a reset must not switch the
 * second factor off.
 */
async function endSessionsAndResets(trx: Kysely<Database>, userId: string, at: Date): Promise<void> {
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await deleteTokensOf(trx, userId, 'reset_password');
  await supersedeMessages(trx, userId, 'passwordReset', at);
  await dropEmailChange(trx, userId, at);
  await trx.deleteFrom('login_challenges').where('user_id', '=', userId).execute();
}

/**
 * The user's pending change of address goes, and its link, if no worker holds it yet, is never sent. With
 * `keptSessionId` (ending the other sessions), a change that this kept session asked for stays; null: no session is
 * kept, so any change goes.
 */
async function dropEmailChange(
  trx: Kysely<Database>,
  userId: string,
  at: Date,
  keptSessionId?: string | null,
): Promise<void> {
  const dropped = await trx
    .deleteFrom('email_changes')
    .where('user_id', '=', userId)
    .$if(typeof keptSessionId === 'string', (query) =>
      query.where((eb) => eb.or([eb('keep_session_id', 'is', null), eb('keep_session_id', '<>', keptSessionId!)])),
    )
    .executeTakeFirst();
  // Ending every session fails the links whatever was found; ending the others only when a change went.
  if (keptSessionId === undefined || dropped.numDeletedRows > 0n) {
    await supersedeMessages(trx, userId, 'emailChange', at);
  }
}

/** The verified account that owns the address, other than `exceptUserId`, as a recipient. */
async function verifiedOwnerOf(
  trx: Kysely<Database>,
  emailKey: string,
  exceptUserId: string,
): Promise<Recipient | undefined> {
  return trx
    .selectFrom('users')
    .select(['id', 'username', 'email'])
    .where('email_key', '=', emailKey)
    .where('verified', '=', 1)
    .where('id', '<>', exceptUserId)
    .executeTakeFirst();
}

/**
 * Another account proved the address these unverified registrations claimed: they go, with everything of theirs, and
 * their pending links (which died with their tokens) fail as superseded.
 */
async function endRegistrations(trx: Kysely<Database>, userIds: string[], now: Date): Promise<void> {
  if (userIds.length === 0) return;
  await failPendingLinks(trx, userIds, now);
  await deleteUsersWithDependents(trx, userIds);
}

/**
 * The users' pending links that no worker holds fail as superseded: their tokens are going. Those a worker holds are
 * left to finish, but never tried again (`giveUpHeld`).
 */
async function failPendingLinks(trx: Kysely<Database>, userIds: string[], now: Date): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({ status: 'failed', sealed_token: null, last_error: SUPERSEDED_ERROR, updated_at: now.getTime() })
    .where('user_id', 'in', userIds)
    .where('status', '=', 'pending')
    .where('claim_id', 'is', null)
    .where('sealed_token', 'is not', null)
    .execute();
  await giveUpHeld(trx, userIds, now);
}

/** Whether the user is disabled (false for an unknown user). */
async function isDisabled(trx: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await trx.selectFrom('users').select('disabled_at').where('id', '=', userId).executeTakeFirst();
  return row !== undefined && row.disabled_at !== null;
}

/** Newest first: `createdAt`, then `id`, both descending (ids by UTF-16 code units, as `Array#sort`). */
function newestSessionFirst(a: StoredSession, b: StoredSession): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

async function deleteTokensOf(trx: Kysely<Database>, userId: string, purpose: TokenPurpose): Promise<void> {
  await trx.deleteFrom('tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
}

/**
 * Deletes the users with every session, token, pending change of address, second factor, recovery code, login
 * challenge and grant of theirs; returns how many users went. The user rows go
 * first (see `lockUser` for the lock order); the foreign keys cascade, and the dependents are deleted explicitly as
 * well so that this stays right on a connection where foreign key enforcement is off (SQLite's default).
 */
async function deleteUsersWithDependents(trx: Kysely<Database>, userIds: string[]): Promise<number> {
  if (userIds.length === 0) return 0;
  const result = await trx.deleteFrom('users').where('id', 'in', userIds).executeTakeFirst();
  await trx.deleteFrom('sessions').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('tokens').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('email_changes').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('second_factors').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('recovery_codes').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('login_challenges').where('user_id', 'in', userIds).execute();
  await trx.deleteFrom('user_roles').where('user_id', 'in', userIds).execute();
  return Number(result.numDeletedRows);
}

async function secondFactorOf(trx: Kysely<Database>, userId: string): Promise<StoredSecondFactor | null> {
  const row = await trx.selectFrom('second_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row ? fromSecondFactorRow(row) : null;
}

/** The user's recovery codes become these (a taken hash fails the whole transaction). */
async function replaceCodes(
  trx: Kysely<Database>,
  userId: string,
  codeHashes: readonly string[],
  now: Date,
): Promise<void> {
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (codeHashes.length === 0) return;
  await trx
    .insertInto('recovery_codes')
    .values(codeHashes.map((codeHash) => ({ code_hash: codeHash, user_id: userId, created_at: now.getTime() })))
    .execute();
}

async function unknownRoleOrPermission(
  trx: Kysely<Database>,
  role: string,
  permission: string,
): Promise<GrantResult | null> {
  if (!(await rowExists(trx, 'roles', role))) return 'unknown_role';
  if (!(await rowExists(trx, 'permissions', permission))) return 'unknown_permission';
  return null;
}

async function unknownUserOrRole(
  trx: Kysely<Database>,
  userId: string,
  role: string,
  rowLocks: boolean,
): Promise<GrantResult | null> {
  // PostgreSQL text holds no NUL, so no user or role has one, and asking would be an error there (22021).
  if (userId.includes('\u0000')) return 'unknown_user';
  if (role.includes('\u0000')) return 'unknown_role';
  // FOR KEY SHARE: a deletion of the user waits for the grant (and then removes it) or has already happened.
  const user = await trx
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(rowLocks, (query) => query.forKeyShare())
    .executeTakeFirst();
  if (!user) return 'unknown_user';
  if (!(await rowExists(trx, 'roles', role))) return 'unknown_role';
  return null;
}

async function holdsRole(trx: Kysely<Database>, userId: string, role: string): Promise<boolean> {
  const row = await trx
    .selectFrom('user_roles')
    .select('role')
    .where('user_id', '=', userId)
    .where('role', '=', role)
    .executeTakeFirst();
  return row !== undefined;
}

/** Those of `permissions` that no role of the user carries. */
async function permissionsNotHeld(
  trx: Kysely<Database>,
  userId: string,
  permissions: readonly string[],
): Promise<string[]> {
  if (permissions.length === 0) return [];
  const rows = await trx
    .selectFrom('user_roles as ur')
    .innerJoin('role_permissions as rp', 'rp.role', 'ur.role')
    .select('rp.permission')
    .where('ur.user_id', '=', userId)
    .where('rp.permission', 'in', [...permissions])
    .execute();
  const held = new Set(rows.map((row) => row.permission));
  return permissions.filter((permission) => !held.has(permission));
}

async function rowExists(trx: Kysely<Database>, table: 'roles' | 'permissions', name: string): Promise<boolean> {
  return (await trx.selectFrom(table).select('name').where('name', '=', name).executeTakeFirst()) !== undefined;
}

/** Sorted in JS rather than by ORDER BY, so the order never depends on a database collation. */
function sortNames(names: string[]): string[] {
  return [...names].sort();
}

function fromSessionCheck(rows: Parameters<typeof fromSessionCheckRow>[0][]): SessionCheck | null {
  return rows.length > 0 ? fromSessionCheckRow(rows[0]) : null;
}

function fromSessionCheckWithAccess(
  rows: (Parameters<typeof fromSessionCheckRow>[0] & { access: number })[],
): SessionCheck | null {
  const [row] = rows;
  if (!row) return null;
  const check = fromSessionCheckRow(row);
  check.access = ACCESS_CODES[row.access];
  return check;
}

/** Who holds a new registration's name and address (`createUser`'s one read). */
interface Holders {
  /** The name is held by an account that counts: the registration fails. */
  taken: boolean;
  /** The name is held by an unverified registration past its time: it goes, and the new one takes the name. */
  expired?: { id: string };
  /** The verified owner of the address, told of the attempt instead of sent a link. */
  owner?: Recipient;
}

function judgeHolders(
  rows: ReadonlyArray<{
    id: string;
    username: string;
    email: string;
    username_key: string;
    verified: number | boolean;
    created_at: number | string | bigint;
  }>,
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
