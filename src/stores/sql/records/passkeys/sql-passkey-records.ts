import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  PasskeyCeremony,
  PasskeyReads,
  PasskeyRecords,
  PasskeyRemoval,
  StoredPasskey,
  StoredPasskeyChallenge,
} from '../../../../services/passkeys/passkey-records';
import type { WayInRule } from '../../../../services/ways-in';
import { type CredentialsTable, type Database, type PasskeyChallengesTable } from '../../schema';
import type { SqlUnit } from '../unit-of-work';
import { lockedUser } from '../user-rows';
import { removeCredential } from '../ways-in';

/** The columns of a passkey's credential row. */
const PASSKEY_COLUMNS = [
  'id',
  'user_id',
  'secret',
  'identifier',
  'counter',
  'label',
  'details',
  'created_at',
  'last_used_at',
] as const satisfies readonly (keyof CredentialsTable)[];

type PasskeyRow = Pick<Selectable<CredentialsTable>, (typeof PASSKEY_COLUMNS)[number]>;

/** What a passkey's registration reported of it: the `details` column, as JSON. */
interface PasskeyDetails {
  userHandle: string;
  transports: string[];
  aaguid: string;
  backupEligible: boolean;
  backedUp: boolean;
  userVerified: boolean;
}

/** The passkeys of each account, read on `db` (the store's, or a transaction's). */
export class SqlPasskeyReads implements PasskeyReads {
  constructor(private readonly db: Kysely<Database>) {}

  async list(userId: string): Promise<StoredPasskey[]> {
    const rows = await this.db
      .selectFrom('credentials')
      .select(PASSKEY_COLUMNS)
      .where('user_id', '=', userId)
      .where('kind', '=', 'passkey')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(fromPasskeyRow);
  }

  async count(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('credentials')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .where('kind', '=', 'passkey')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async findByCredentialId(credentialId: string): Promise<StoredPasskey | null> {
    const row = await this.db
      .selectFrom('credentials')
      .select(PASSKEY_COLUMNS)
      .where('kind', '=', 'passkey')
      .where('identifier', '=', credentialId)
      .executeTakeFirst();
    return row ? fromPasskeyRow(row) : null;
  }
}

/**
 * Passkeys and their ceremonies' challenges, inside a transaction. Each change of a user's passkeys locks the user row
 * first (the lock order, see `lockUser`): they queue there behind a deletion of the user, and two removals of one
 * user's passkeys are judged one after the other.
 */
export class SqlPasskeyRecords implements PasskeyRecords {
  constructor(private readonly unit: SqlUnit) {}

  async list(userId: string): Promise<StoredPasskey[]> {
    return (await this.reads()).list(userId);
  }

  async count(userId: string): Promise<number> {
    return (await this.reads()).count(userId);
  }

  async findByCredentialId(credentialId: string): Promise<StoredPasskey | null> {
    return (await this.reads()).findByCredentialId(credentialId);
  }

  async add(passkey: StoredPasskey): Promise<'added' | 'duplicate' | 'gone'> {
    const trx = await this.unit.ready();
    if (!(await lockedUser(trx, passkey.userId, this.unit.capabilities.rowLocks))) return 'gone';
    // The unique index decides, not a read before: of racing registrations of one credential id (for any accounts)
    // the database lets one insert; the others wait for it and then insert nothing. Doing nothing, rather than
    // failing, keeps the transaction usable (a failed statement aborts a PostgreSQL transaction).
    const inserted = await trx
      .insertInto('credentials')
      .values(toPasskeyRow(passkey))
      .onConflict((oc) => oc.columns(['kind', 'identifier']).where('identifier', 'is not', null).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return 'duplicate';
    await trx
      .updateTable('users')
      .set({ updated_at: passkey.createdAt.getTime() })
      .where('id', '=', passkey.userId)
      .execute();
    return 'added';
  }

  async rename(userId: string, id: string, name: string): Promise<StoredPasskey | null> {
    const trx = await this.unit.ready();
    if (!(await lockedUser(trx, userId, this.unit.capabilities.rowLocks))) return null;
    const row = await trx
      .updateTable('credentials')
      .set({ label: name })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('kind', '=', 'passkey')
      .returning(PASSKEY_COLUMNS)
      .executeTakeFirst();
    return row ? fromPasskeyRow(row) : null;
  }

  async remove(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<PasskeyRemoval> {
    const trx = await this.unit.ready();
    const removal = await removeCredential(trx, this.unit.capabilities.rowLocks, userId, id, 'passkey', wayIn, now);
    if (removal.outcome !== 'removed') return removal;
    return { outcome: 'removed', passkey: fromPasskeyRow(removal.row), user: removal.user };
  }

  async use(id: string, expected: number, next: number, backedUp: boolean, now: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    // The owner's row first (the lock order), read with the passkey's details in the same statement.
    const current = await trx
      .selectFrom('credentials as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select('c.details')
      .where('c.id', '=', id)
      .where('c.kind', '=', 'passkey')
      .$if(this.unit.capabilities.rowLocks, (query) => query.forNoKeyUpdate('u'))
      .executeTakeFirst();
    if (!current) return false;
    // A compare-and-set on the counter: of racing assertions that read the same counter (on any instance), the
    // database lets exactly one change the row; the others find the counter moved.
    const result = await trx
      .updateTable('credentials')
      .set({
        counter: next,
        last_used_at: now.getTime(),
        details: JSON.stringify({ ...parseDetails(current.details), backedUp }),
      })
      .where('id', '=', id)
      .where('kind', '=', 'passkey')
      .where('counter', '=', expected)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async createChallenge(challenge: StoredPasskeyChallenge): Promise<void> {
    // An insert alone waits to go with what follows it (`SqlUnit`): one statement on PostgreSQL.
    this.unit.queue((db) => db.insertInto('passkey_challenges').values(toChallengeRow(challenge)));
  }

  async consumeChallenge(
    challengeHash: string,
    ceremony: PasskeyCeremony,
    now: Date,
  ): Promise<StoredPasskeyChallenge | null> {
    const trx = await this.unit.ready();
    // One DELETE ... RETURNING is the claim: of concurrent callers only the one whose statement deleted the row gets
    // it. An expired one is deleted too, and answers null; another ceremony's is left as it is.
    const row = await trx
      .deleteFrom('passkey_challenges')
      .where('challenge_hash', '=', challengeHash)
      .where('ceremony', '=', ceremony)
      .returningAll()
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= now.getTime()) return null;
    return fromChallengeRow(row);
  }

  private async reads(): Promise<SqlPasskeyReads> {
    return new SqlPasskeyReads(await this.unit.ready());
  }
}

function toPasskeyRow(passkey: StoredPasskey): Insertable<CredentialsTable> {
  const details: PasskeyDetails = {
    userHandle: passkey.userHandle,
    transports: [...passkey.transports],
    aaguid: passkey.aaguid,
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp,
    userVerified: passkey.userVerified,
  };
  return {
    id: passkey.id,
    user_id: passkey.userId,
    kind: 'passkey',
    secret: passkey.publicKey,
    identifier: passkey.credentialId,
    counter: passkey.counter,
    label: passkey.name,
    details: JSON.stringify(details),
    created_at: passkey.createdAt.getTime(),
    last_used_at: passkey.lastUsedAt ? passkey.lastUsedAt.getTime() : null,
  };
}

function parseDetails(details: string | null): PasskeyDetails {
  const parsed = JSON.parse(details ?? '{}') as Partial<PasskeyDetails>;
  return {
    userHandle: parsed.userHandle ?? '',
    transports: Array.isArray(parsed.transports) ? parsed.transports : [],
    aaguid: parsed.aaguid ?? '',
    backupEligible: parsed.backupEligible === true,
    backedUp: parsed.backedUp === true,
    userVerified: parsed.userVerified === true,
  };
}

function fromPasskeyRow(row: PasskeyRow): StoredPasskey {
  const details = parseDetails(row.details);
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.identifier ?? '',
    publicKey: row.secret,
    counter: Number(row.counter ?? 0),
    userHandle: details.userHandle,
    name: row.label ?? '',
    transports: details.transports,
    aaguid: details.aaguid,
    backupEligible: details.backupEligible,
    backedUp: details.backedUp,
    userVerified: details.userVerified,
    createdAt: new Date(Number(row.created_at)),
    lastUsedAt: row.last_used_at === null ? null : new Date(Number(row.last_used_at)),
  };
}

function toChallengeRow(challenge: StoredPasskeyChallenge): Insertable<PasskeyChallengesTable> {
  return {
    challenge_hash: challenge.challengeHash,
    ceremony: challenge.ceremony,
    user_id: challenge.userId,
    session_id: challenge.sessionId,
    login_challenge_hash: challenge.loginChallengeHash,
    user_handle: challenge.userHandle,
    created_at: challenge.createdAt.getTime(),
    expires_at: challenge.expiresAt.getTime(),
  };
}

function fromChallengeRow(row: Selectable<PasskeyChallengesTable>): StoredPasskeyChallenge {
  return {
    challengeHash: row.challenge_hash,
    ceremony: row.ceremony as PasskeyCeremony,
    userId: row.user_id,
    sessionId: row.session_id,
    loginChallengeHash: row.login_challenge_hash,
    userHandle: row.user_handle,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}
