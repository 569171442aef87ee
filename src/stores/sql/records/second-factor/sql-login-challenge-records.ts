import type { Kysely } from 'kysely';
import type {
  LoginChallengeReads,
  LoginChallengeRecords,
} from '../../../../services/second-factor/second-factor-records';
import type { StoredLoginChallenge } from '../../../../services/types';
import { fromLoginChallengeRow, toLoginChallengeRow } from '../../rows';
import type { Database } from '../../schema';
import type { SqlUnit } from '../unit-of-work';

/** The login challenges, read on `db` (the store's, or a transaction's). */
export class SqlLoginChallengeReads implements LoginChallengeReads {
  constructor(private readonly db: Kysely<Database>) {}

  async find(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null> {
    const row = await this.db
      .selectFrom('login_challenges')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromLoginChallengeRow(row) : null;
  }
}

/** The login challenges, inside a transaction. */
export class SqlLoginChallengeRecords implements LoginChallengeRecords {
  constructor(private readonly unit: SqlUnit) {}

  async find(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null> {
    return new SqlLoginChallengeReads(await this.unit.ready()).find(tokenHash, now);
  }

  async create(challenge: StoredLoginChallenge): Promise<void> {
    // An insert alone needs no transaction open yet: it waits to go with its audit event (`SqlUnit`), one statement
    // on PostgreSQL.
    this.unit.queue((db) => db.insertInto('login_challenges').values(toLoginChallengeRow(challenge)));
  }

  async takeAttempt(tokenHash: string, now: Date, maxAttempts: number): Promise<StoredLoginChallenge | null> {
    // One conditional update: the database counts concurrent answers one after the other, so never more than
    // `maxAttempts` of them find the condition true.
    const trx = await this.unit.ready();
    const row = await trx
      .updateTable('login_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .where('attempts', '<', maxAttempts)
      .returningAll()
      .executeTakeFirst();
    return row ? fromLoginChallengeRow(row) : null;
  }

  async consume(tokenHash: string): Promise<boolean> {
    const trx = await this.unit.ready();
    const result = await trx.deleteFrom('login_challenges').where('token_hash', '=', tokenHash).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
