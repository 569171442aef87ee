import type { Kysely } from 'kysely';
import type {
  SecondFactorEnabling,
  SecondFactorReads,
  SecondFactorRecords,
} from '../../../../services/second-factor/second-factor-records';
import type { StoredSecondFactor, StoredUser } from '../../../../services/types';
import type { RequestPathQueries } from '../../request-path-queries';
import { fromSecondFactorRow, fromUserRow, toCredentialRow, toSecondFactorRow } from '../../rows';
import { type Database, SECOND_FACTOR_COLUMNS } from '../../schema';
import { firstRowBy } from '../sql-user-reads';
import type { SqlUnit } from '../unit-of-work';
import { lockedUser, nextCredentialEpoch } from '../user-rows';

/** The second factor and its recovery codes, read on `db` (the store's, or a transaction's). */
export class SqlSecondFactorReads implements SecondFactorReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queries: RequestPathQueries,
  ) {}

  async get(userId: string): Promise<StoredSecondFactor | null> {
    const row = await firstRowBy(this.db, this.queries.secondFactorByUser, userId);
    return row ? fromSecondFactorRow(row) : null;
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .where('kind', '=', 'recovery_code')
      .where('last_used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

/**
 * The second factor (TOTP) and its recovery codes, inside a transaction. Each change locks the user row first (the
 * lock order, see `lockUser`): the changes of one user's factor queue there, behind a deletion, reset or change.
 */
export class SqlSecondFactorRecords implements SecondFactorRecords {
  constructor(private readonly unit: SqlUnit) {}

  async get(userId: string): Promise<StoredSecondFactor | null> {
    return (await this.reads()).get(userId);
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    return (await this.reads()).countRecoveryCodes(userId);
  }

  async start(factor: StoredSecondFactor): Promise<boolean> {
    const trx = await this.unit.ready();
    // The user row first (the lock order): concurrent starts, an enabling and a deletion of the user queue here.
    const user = await trx
      .selectFrom('users')
      .select('id')
      .where('id', '=', factor.userId)
      .$if(this.unit.capabilities.rowLocks, (query) => query.forNoKeyUpdate())
      .executeTakeFirst();
    if (!user) return false;
    const replaced = await trx
      .deleteFrom('credentials')
      .where('user_id', '=', factor.userId)
      .where('kind', '=', 'totp')
      .where('enabled', '=', 0)
      .executeTakeFirst();
    if (replaced.numDeletedRows === 0n && (await secondFactorOf(trx, factor.userId))) return false;
    await trx.insertInto('credentials').values(toSecondFactorRow(factor)).execute();
    return true;
  }

  async enable(enabling: SecondFactorEnabling): Promise<{ user: StoredUser; sessionsEnded: number } | null> {
    const { userId, sessionTokenHash } = enabling;
    const trx = await this.unit.ready();
    // The user row first, as `start` locks it: a start and this enabling of one user run one after the other, and
    // the compare-and-set on the sealed secret sees what the other left.
    const user = await lockedUser(trx, userId, this.unit.capabilities.rowLocks);
    if (!user) return null;
    const at = enabling.now.getTime();
    const enabled = await trx
      .updateTable('credentials')
      .set({ enabled: 1, enabled_at: at, last_used_step: enabling.step, last_used_at: at })
      .where('user_id', '=', userId)
      .where('kind', '=', 'totp')
      .where('enabled', '=', 0)
      .where('secret', '=', enabling.sealedSecret)
      .executeTakeFirst();
    if (enabled.numUpdatedRows === 0n) return null;
    await replaceCodes(trx, userId, enabling.recoveryCodeHashes, enabling.now);
    // Ending the other sessions is a change of the credential state: a session a racing sign-in made under the old
    // one fails everywhere. The kept session is moved to the new state.
    const now = enabling.endOtherSessions ? await nextCredentialEpoch(trx, userId) : user;
    const { methods } = enabling;
    if (sessionTokenHash !== undefined && (methods !== undefined || now !== user)) {
      await trx
        .updateTable('sessions')
        .set({ credential_epoch: Number(now.credential_epoch), ...(methods && { amr: methods.join(' ') }) })
        .where('token_hash', '=', sessionTokenHash)
        .where('user_id', '=', userId)
        .execute();
    }
    let sessionsEnded = 0;
    if (enabling.endOtherSessions) {
      const deleted = await trx
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .$if(sessionTokenHash !== undefined, (query) => query.where('token_hash', '<>', sessionTokenHash!))
        .executeTakeFirst();
      sessionsEnded = Number(deleted.numDeletedRows);
    }
    return { user: fromUserRow(now), sessionsEnded };
  }

  async useTotpStep(userId: string, step: number, now: Date): Promise<boolean> {
    // One conditional update, a compare-and-set on the last used step: of concurrent uses of one step (on any
    // instance), the database lets exactly one change the row.
    const trx = await this.unit.ready();
    const result = await trx
      .updateTable('credentials')
      .set({ last_used_step: step, last_used_at: now.getTime() })
      .where('user_id', '=', userId)
      .where('kind', '=', 'totp')
      .where('enabled', '=', 1)
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async consumeRecoveryCode(userId: string, codeHash: string, now: Date): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    const user = await lockedUser(trx, userId, this.unit.capabilities.rowLocks);
    if (!user) return null;
    // Marking it used is the claim: only the caller whose UPDATE changed the row gets the user (and sends the notice).
    const used = await trx
      .updateTable('credentials')
      .set({ last_used_at: now.getTime() })
      .where('secret', '=', codeHash)
      .where('kind', '=', 'recovery_code')
      .where('user_id', '=', userId)
      .where('last_used_at', 'is', null)
      .executeTakeFirst();
    if (used.numUpdatedRows === 0n) return null;
    return fromUserRow(user);
  }

  async replaceRecoveryCodes(
    userId: string,
    recoveryCodeHashes: readonly string[],
    now: Date,
  ): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    // The user row is locked first, so a disabling or a deletion under way has finished when the factor is judged.
    const user = await lockedUser(trx, userId, this.unit.capabilities.rowLocks);
    if (!user) return null;
    if (!(await secondFactorOf(trx, userId))?.enabled) return null;
    await replaceCodes(trx, userId, recoveryCodeHashes, now);
    return fromUserRow(user);
  }

  async disable(userId: string, _now: Date): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    const user = await lockedUser(trx, userId, this.unit.capabilities.rowLocks);
    if (!user) return null;
    const removed = await trx
      .deleteFrom('credentials')
      .where('user_id', '=', userId)
      .where('kind', '=', 'totp')
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) return null;
    await deleteCodes(trx, userId);
    await trx.deleteFrom('login_challenges').where('user_id', '=', userId).execute();
    return fromUserRow(user);
  }

  private async reads(): Promise<SqlSecondFactorReads> {
    return new SqlSecondFactorReads(await this.unit.ready(), this.unit.queries);
  }
}

async function secondFactorOf(trx: Kysely<Database>, userId: string): Promise<StoredSecondFactor | null> {
  const row = await trx
    .selectFrom('credentials')
    .select(SECOND_FACTOR_COLUMNS)
    .where('user_id', '=', userId)
    .where('kind', '=', 'totp')
    .executeTakeFirst();
  return row ? fromSecondFactorRow(row) : null;
}

/** The user's recovery codes become these (a taken hash fails the whole transaction). */
async function replaceCodes(
  trx: Kysely<Database>,
  userId: string,
  codeHashes: readonly string[],
  now: Date,
): Promise<void> {
  await deleteCodes(trx, userId);
  if (codeHashes.length === 0) return;
  await trx
    .insertInto('credentials')
    .values(codeHashes.map((codeHash) => toCredentialRow(userId, 'recovery_code', codeHash, now)))
    .execute();
}

/** The user's recovery codes, used or not, go. */
async function deleteCodes(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.deleteFrom('credentials').where('user_id', '=', userId).where('kind', '=', 'recovery_code').execute();
}
