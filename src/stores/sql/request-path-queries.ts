import {
  type AliasedExpression,
  type Compilable,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  sql,
} from 'kysely';
import { GLOBAL_SCOPE } from '../../services/store/access-records';
import type { CredentialKind } from '../../services/credential-kinds';
import type { AccessAnswer } from '../../services/types';
import { precompile, type PrecompileOptions } from './precompiled-query';
import type { SqlCapabilities } from './sql-capabilities';
import { SECOND_FACTOR_COLUMNS, USER_COLUMNS, type Database } from './schema';

/**
 * The reads that run on every request of their kind, compiled once per store (see `precompile`): session validation
 * (every protected request), API key validation (every host request with a key), role and permission checks (every
 * guarded host route), and the user lookups of login (with its second factor) and the token flows. Each is one
 * statement that an index answers.
 */
export function requestPathQueries(db: Kysely<Database>, capabilities: SqlCapabilities) {
  // Every column named, never `*`: on PostgreSQL these run as prepared statements, and a prepared `select *` fails
  // with "cached plan must not change result type" once a newer instance's migration adds a column to the table.
  const userColumns = USER_COLUMNS.map((column) => `u.${column}` as const);
  // Each is compiled once and told to `prepare`, which marks it for preparing where the database gains from that, and
  // runs through the database's direct reads where it has them.
  const { readDirect } = capabilities;
  const options: PrecompileOptions = {
    onCompiled: capabilities.prepare?.bind(capabilities),
    direct: readDirect ? { db, read: readDirect } : undefined,
  };
  const compiled = <Params extends string[], Row>(
    arity: Params['length'],
    build: (...values: Params) => Compilable<Row>,
  ) => precompile(arity, build, options);
  const sessionCheck = (tokenHash: string) =>
    db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select([
        'u.id',
        'u.username',
        'u.email',
        'u.verified',
        'u.created_at',
        'u.updated_at',
        'u.disabled_at',
        's.expires_at',
        's.last_seen_at',
        's.amr',
      ])
      .where('s.token_hash', '=', tokenHash)
      // A session of an earlier credential state is not found: the compare costs nothing, both rows are read anyway.
      .whereRef('s.credential_epoch', '=', 'u.credential_epoch');
  const apiKeyCheck = (keyHash: string) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'u.id',
        'u.username',
        'u.email',
        'u.verified',
        'u.created_at',
        'u.updated_at',
        'u.disabled_at',
        'k.id as key_id',
        'k.expires_at',
        'k.scopes',
        'k.last_used_at',
      ])
      .where('k.key_hash', '=', keyHash);
  // The guards answer for global grants only. The scope is a literal of the SQL text, not a parameter: nothing more to
  // bind per request, and the primary key (user_id, scope, role) is still probed with every column given.
  const globalScope = sql.lit(GLOBAL_SCOPE);
  /** The user `u`'s answer for a permission (`accessCode`): granted when a global role of theirs carries it. */
  const permissionAccess = (
    eb: ExpressionBuilder<Database & { u: Database['users'] }, 'u'>,
    permission: string,
    permissionAgain: string,
  ) =>
    accessCode(
      eb.exists(
        eb
          .selectFrom('role_permissions as rp')
          .innerJoin('user_roles as ur', 'ur.role', 'rp.role')
          .select('rp.role')
          .where('rp.permission', '=', permission)
          .where('ur.scope', '=', globalScope)
          .whereRef('ur.user_id', '=', 'u.id'),
      ),
      eb.exists(eb.selectFrom('permissions as p').select('p.name').where('p.name', '=', permissionAgain)),
    );
  const userBy = (column: 'u.id' | 'u.username_key') =>
    compiled(1, (value: string) => db.selectFrom('users as u').select(userColumns).where(column, '=', value));
  return {
    /**
     * The session and its user, by the session's token hash (primary key), joined on the user's primary key; none when
     * the session was issued under an earlier credential state of its user.
     */
    sessionAndUser: compiled(1, (tokenHash: string) =>
      db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(userColumns)
        .select([
          's.token_hash as session_token_hash',
          's.created_at as session_created_at',
          's.expires_at as session_expires_at',
          's.last_seen_at as session_last_seen_at',
          's.id as session_id',
          's.authenticated_at as session_authenticated_at',
          's.ip as session_ip',
          's.user_agent as session_user_agent',
          's.amr as session_amr',
          's.credential_epoch as session_credential_epoch',
        ])
        .where('s.token_hash', '=', tokenHash)
        .whereRef('s.credential_epoch', '=', 'u.credential_epoch'),
    ),

    /**
     * What checking a request's session needs (`SessionCheck`): the session's deadlines and mark, its user's public
     * fields. Narrower than `sessionAndUser`: on SQLite every column read costs, and this runs on every request.
     */
    sessionCheck: compiled(1, (tokenHash: string) => sessionCheck(tokenHash)),

    /**
     * `sessionCheck` and, in the same statement, the guard's answer for a global role (`access`, see `accessCode`).
     * Each value is a placeholder of its own, as `precompile` wants; the caller passes the role twice.
     */
    sessionCheckWithRole: compiled(3, (tokenHash: string, role: string, roleAgain: string) =>
      sessionCheck(tokenHash).select((eb) =>
        accessCode(
          eb.exists(
            eb
              .selectFrom('user_roles as ur')
              .select('ur.role')
              .where('ur.role', '=', role)
              .where('ur.scope', '=', globalScope)
              .whereRef('ur.user_id', '=', 'u.id'),
          ),
          eb.exists(eb.selectFrom('roles as r').select('r.name').where('r.name', '=', roleAgain)),
        ),
      ),
    ),

    /** `sessionCheckWithRole` for a permission: granted when a global role of the user carries it. */
    sessionCheckWithPermission: compiled(3, (tokenHash: string, permission: string, permissionAgain: string) =>
      sessionCheck(tokenHash).select((eb) => permissionAccess(eb, permission, permissionAgain)),
    ),

    /**
     * What checking a request's API key needs (`ApiKeyCheck`), by the key's hash (the unique index), joined on its
     * owner's primary key: the key's id, scopes, deadline and last use, the owner's public fields and disabled mark.
     * Expiry and the mark are judged by the caller, so one statement answers every key the guard may refuse.
     */
    apiKeyCheck: compiled(1, (keyHash: string) => apiKeyCheck(keyHash)),

    /**
     * `apiKeyCheck` and, in the same statement, the owner's answer for a permission now (`access`, as
     * `sessionCheckWithPermission`): a role revoked on any instance shrinks every key of its holder at the next
     * request. The caller passes the permission twice.
     */
    apiKeyCheckWithPermission: compiled(3, (keyHash: string, permission: string, permissionAgain: string) =>
      apiKeyCheck(keyHash).select((eb) => permissionAccess(eb, permission, permissionAgain)),
    ),

    /**
     * `sessionCheck` and, in the same statement, the user's role in the organization (`org_role`, null when not a
     * member): the organization guards' one read, which the primary key (organization_id, user_id) answers.
     */
    sessionCheckWithMembership: compiled(2, (tokenHash: string, organizationId: string) =>
      sessionCheck(tokenHash).select((eb) =>
        eb
          .selectFrom('organization_members as om')
          .select('om.role')
          .where('om.organization_id', '=', organizationId)
          .whereRef('om.user_id', '=', 'u.id')
          .as('org_role'),
      ),
    ),

    /** The role's row (absent: unknown role) and the user's global grant of it, if any. */
    role: compiled(2, (userId: string, role: string) =>
      db
        .selectFrom('roles as r')
        .leftJoin('user_roles as ur', (join) =>
          join.onRef('ur.role', '=', 'r.name').on('ur.user_id', '=', userId).on('ur.scope', '=', globalScope),
        )
        .select('ur.user_id as holder')
        .where('r.name', '=', role),
    ),

    /** The permission's row (absent: unknown permission) and whether a global role of the user carries it. */
    permission: compiled(2, (userId: string, permission: string) =>
      db
        .selectFrom('permissions as p')
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('role_permissions as rp')
                .innerJoin('user_roles as ur', 'ur.role', 'rp.role')
                .select('rp.role')
                .whereRef('rp.permission', '=', 'p.name')
                .where('ur.user_id', '=', userId)
                .where('ur.scope', '=', globalScope),
            )
            .as('granted'),
        )
        .where('p.name', '=', permission),
    ),

    /** The user's second factor (its TOTP credential), enabled or not: login reads it once the password has passed. */
    secondFactorByUser: compiled(1, (userId: string) =>
      db.selectFrom('credentials').select(SECOND_FACTOR_COLUMNS).where('user_id', '=', userId).where('kind', '=', TOTP),
    ),

    userById: userBy('u.id'),
    userByUsernameKey: userBy('u.username_key'),
    /**
     * Login's read: the user by username key and its password credential (null when it has none), one statement that
     * the unique username key and the (user_id, kind) index answer.
     */
    signInByUsernameKey: compiled(1, (usernameKey: string) =>
      db
        .selectFrom('users as u')
        .leftJoin('credentials as c', (join) => join.onRef('c.user_id', '=', 'u.id').on('c.kind', '=', PASSWORD))
        .select(userColumns)
        .select('c.secret as password_hash')
        .where('u.username_key', '=', usernameKey),
    ),
    /** The user's password hash (its `password` credential). */
    passwordOf: compiled(1, (userId: string) =>
      db.selectFrom('credentials').select('secret').where('user_id', '=', userId).where('kind', '=', PASSWORD),
    ),
    /** The verified owner of an address (unverified registrations of it own nothing). */
    verifiedUserByEmailKey: compiled(1, (emailKey: string) =>
      db.selectFrom('users as u').select(userColumns).where('u.email_key', '=', emailKey).where('u.verified', '=', 1),
    ),
  };
}

export type RequestPathQueries = ReturnType<typeof requestPathQueries>;

// Literals of the SQL text, as the global scope is: nothing more to bind, and the (user_id, kind) index is probed whole.
const PASSWORD = sql.lit('password' satisfies CredentialKind);
const TOTP = sql.lit('totp' satisfies CredentialKind);

/** `access` as the guard queries answer it: the index of its `AccessAnswer` in `ACCESS_CODES`. */
export const ACCESS_CODES = ['unknown', 'denied', 'granted'] as const satisfies readonly AccessAnswer[];

/**
 * 2 when the grant exists, else 1 when the role or permission does, else 0. A CASE tries its branches in order and
 * stops at the first that holds, so a granted request (nearly every one) looks up the grant only.
 */
function accessCode(grant: Expression<SqlBool>, name: Expression<SqlBool>): AliasedExpression<number, 'access'> {
  return sql<number>`case when ${grant} then 2 when ${name} then 1 else 0 end`.as('access');
}
