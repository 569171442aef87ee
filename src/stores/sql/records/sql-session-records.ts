import type { Kysely } from 'kysely';
import { type Awaitable, whenReady } from '../../../services/awaitable';
import type { SessionReads, SessionRecords } from '../../../services/store/session-records';
import type { SessionCheck, SessionQuery, StoredSession, StoredUser } from '../../../services/types';
import { ACCESS_CODES, type RequestPathQueries } from '../request-path-queries';
import { fromSessionCheckRow, fromSessionRow, fromUserRow, toSessionRow } from '../rows';
import { runPrepared } from '../run-prepared';
import type { Database } from '../schema';
import type { SqlCapabilities } from '../sql-capabilities';
import { dropEmailChange } from './credential-ends';
import { UNFLUSHED_STATEMENT } from './unflushed';
import type { SqlUnit } from './unit-of-work';
import { lockedUser } from './user-rows';

/** Sessions as the request path reads them, on the store's Kysely (each read its own statement). */
export class SqlSessionReads implements SessionReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
    private readonly queries: RequestPathQueries,
  ) {}

  check(tokenHash: string, access?: SessionQuery): Awaitable<SessionCheck | null> {
    // Not async: on SQLite the read is synchronous (`readDirect`), and this runs on every authenticated request: the
    // answer is then the value, not a promise of it.
    try {
      if (!access) return whenReady(this.queries.sessionCheck.execute(this.db, tokenHash), fromSessionCheck);
      if (access.kind === 'membership') {
        return whenReady(
          this.queries.sessionCheckWithMembership.execute(this.db, tokenHash, access.organizationId),
          fromSessionCheckWithMembership,
        );
      }
      const query =
        access.kind === 'role' ? this.queries.sessionCheckWithRole : this.queries.sessionCheckWithPermission;
      return whenReady(query.execute(this.db, tokenHash, access.name, access.name), fromSessionCheckWithAccess);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async findWithUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null> {
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
      amr: row.session_amr,
      credential_epoch: row.session_credential_epoch,
    });
    return { session, user: fromUserRow(row) };
  }

  async list(userId: string): Promise<StoredSession[]> {
    const rows = await this.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();
    // Sorted in JS, so that ties on `createdAt` never depend on a database collation (see `sortNames`).
    return rows.map(fromSessionRow).sort(newestSessionFirst);
  }

  async touch(tokenHash: string, lastSeenAt: Date): Promise<void> {
    await this.capabilities.writeTransaction(
      this.db,
      (trx) =>
        trx
          .updateTable('sessions')
          .set({ last_seen_at: lastSeenAt.getTime() })
          .where('token_hash', '=', tokenHash)
          .execute(),
      UNFLUSHED_STATEMENT,
    );
  }
}

/** Sessions inside a transaction. */
export class SqlSessionRecords implements SessionRecords {
  constructor(private readonly unit: SqlUnit) {}

  async create(session: StoredSession): Promise<boolean> {
    // The user row first, in one conditional UPDATE that is both the check (this credential state, not disabled) and the
    // row lock: where writers lock rows (PostgreSQL), it waits for a reset, change, deletion or disable of the user
    // that is under way, and then judges the row as that left it (READ COMMITTED re-checks the condition on the new
    // version). Otherwise it could pass the old row and insert after the change had already ended the user's
    // sessions. The session goes in only once that check has passed, and the sign-in is recorded with it.
    const trx = await this.unit.ready();
    const signedIn = await runPrepared(
      trx,
      this.unit.capabilities,
      trx
        .updateTable('users')
        .set({ last_sign_in_at: session.createdAt.getTime() })
        .where('id', '=', session.userId)
        .where('credential_epoch', '=', session.credentialEpoch)
        .where('disabled_at', 'is', null),
    );
    if (!signedIn.numAffectedRows) return false;
    // Waits to go with the sign-in's audit event (`SqlUnit`): one statement on PostgreSQL. A session a password proved
    // records the password's last use with it.
    if (session.methods.includes('pwd')) {
      const at = session.createdAt.getTime();
      this.unit.queue((db) =>
        db
          .updateTable('credentials')
          .set({ last_used_at: at })
          .where('user_id', '=', session.userId)
          .where('kind', '=', 'password'),
      );
    }
    this.unit.queue((db) => db.insertInto('sessions').values(toSessionRow(session)));
    return true;
  }

  async delete(tokenHash: string): Promise<boolean> {
    const trx = await this.unit.ready();
    const ended = await trx.deleteFrom('sessions').where('token_hash', '=', tokenHash).executeTakeFirst();
    return ended.numDeletedRows > 0n;
  }

  async deleteById(userId: string, sessionId: string): Promise<boolean> {
    // The id comes from a URL: PostgreSQL text cannot hold NUL, so no stored id has one (see `firstRowBy`).
    if (sessionId.includes('\u0000')) return false;
    const trx = await this.unit.ready();
    const result = await trx
      .deleteFrom('sessions')
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async deleteAll(userId: string, at: Date): Promise<number | null> {
    if (userId.includes('\u0000')) return null;
    const trx = await this.unit.ready();
    // The user row first (the lock order): a login under way commits its session before, or finds this one done.
    if (!(await lockedUser(trx, userId, this.unit.capabilities.rowLocks))) return null;
    const ended = await trx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    // Ending every session leaves no change of address waiting either (the "it was not me" button).
    await dropEmailChange(trx, userId, at);
    return Number(ended.numDeletedRows);
  }

  async deleteOthers(userId: string, keepTokenHash: string, at: Date): Promise<number | null> {
    if (userId.includes('\u0000')) return null;
    // A login committing meanwhile keeps its session, as if it had come just after: the one order that can be.
    const trx = await this.unit.ready();
    // The user row first (the lock order): a confirmation of the pending change, which locks it before the change
    // and the sessions, queues here instead of deadlocking.
    if (!(await lockedUser(trx, userId, this.unit.capabilities.rowLocks))) return null;
    const result = await trx
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token_hash', '<>', keepTokenHash)
      .executeTakeFirst();
    const kept = await trx
      .selectFrom('sessions')
      .select('id')
      .where('token_hash', '=', keepTokenHash)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    await dropEmailChange(trx, userId, at, kept?.id ?? null);
    return Number(result.numDeletedRows);
  }

  async markAuthenticated(tokenHash: string, credentialEpoch: number, at: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    // The user row first (the lock order), FOR SHARE: a password change or reset under way finishes first, and
    // the credential state is then judged as it left it (and the session is gone with it).
    const holder = await trx
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select('u.id')
      .where('s.token_hash', '=', tokenHash)
      .where('u.credential_epoch', '=', credentialEpoch)
      .$if(this.unit.capabilities.rowLocks, (query) => query.forShare('u'))
      .executeTakeFirst();
    if (!holder) return false;
    const result = await trx
      .updateTable('sessions')
      .set({ authenticated_at: at.getTime() })
      .where('token_hash', '=', tokenHash)
      .where('user_id', '=', holder.id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

/** Newest first: `createdAt`, then `id`, both descending (ids by UTF-16 code units, as `Array#sort`). */
function newestSessionFirst(a: StoredSession, b: StoredSession): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function fromSessionCheck(rows: Parameters<typeof fromSessionCheckRow>[0][]): SessionCheck | null {
  return rows.length > 0 ? fromSessionCheckRow(rows[0]) : null;
}

function fromSessionCheckWithMembership(
  rows: (Parameters<typeof fromSessionCheckRow>[0] & { org_role: string | null })[],
): SessionCheck | null {
  const [row] = rows;
  if (!row) return null;
  const check = fromSessionCheckRow(row);
  check.membership = row.org_role ?? null;
  return check;
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
