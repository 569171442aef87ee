import { AccountError, invalidSession } from '../../errors/account-error';
import { AccountContext } from '../account-context';
import { operator, self, withDetails } from '../audit-trail';
import { liveSessionViews } from '../session-views';
import type { SessionView, StoredUser } from '../types';

/**
 * What re-authentication asks of the second factor (`SecondFactors` is one; a request's view of the service hands in
 * its own). Declared here, not picked from it, so that this slice does not import the second factor's.
 */
export interface SecondFactorCheck {
  /** Whether the user has a factor on: re-authentication then asks for a code after the password. */
  isOn(userId: string): Promise<boolean>;
  /** Refuses (`second_factor_required`, or a wrong code counted as a guess) unless `code` proves the factor. */
  requireReauthenticationCode(user: StoredUser, code: string | undefined): Promise<void>;
}

const sessionNotFound = () => new AccountError('session_not_found', 'No such session');

/**
 * The sessions a person can see and end (and an operator, by username), and re-authentication, which makes a
 * session count as recently authenticated for sensitive changes. Ending a session takes effect on every instance
 * at the next request: each request reads its session from the store.
 */
export class SessionDirectory {
  constructor(
    private readonly core: AccountContext,
    private readonly factors: SecondFactorCheck,
  ) {}

  /** The live sessions of the token's user, newest first, with `current` on this one. */
  async list(token: string): Promise<SessionView[]> {
    const { user, session } = await this.core.requireLiveSession(token);
    return liveSessionViews(
      await this.core.store.sessions.list(user.id),
      this.core.clock.now(),
      this.core.options,
      session.tokenHash,
    );
  }

  /**
   * Ends one of the user's own sessions by its public id, on every instance from the next request (each request
   * reads its session from the store). An unknown id and another user's session are the same `session_not_found`.
   * Ending a session other than this one needs a recent password (ASVS V7.5.2); ending this one is a logout.
   */
  async end(token: string, sessionId: string): Promise<void> {
    const live = await this.core.requireLiveSession(token);
    if (live.session.id !== sessionId) this.core.requireRecent(live);
    const audit = this.core.audit.event('session_ended', 'success', self(live.user.id));
    if (!(await this.core.audited(audit, (tx) => tx.sessions.deleteById(live.user.id, sessionId)))) {
      this.core.logger.info({ event: 'session_ended', outcome: 'not_found', userId: live.user.id }, 'no such session');
      throw sessionNotFound();
    }
    this.core.logger.info(
      { event: 'session_ended', outcome: 'success', userId: live.user.id, sessionId },
      'session ended',
    );
  }

  /** Ends every session of the user but this one; needs a recent password. Returns how many ended. */
  async endOthers(token: string): Promise<number> {
    const { user, session } = await this.core.requireRecentSession(token);
    const audit = this.core.audit.event('other_sessions_ended', 'success', self(user.id));
    const count = await this.core.store.transaction(async (tx) => {
      const ended = await tx.sessions.deleteOthers(user.id, session.tokenHash, audit.at);
      if (ended === null) return 0;
      await tx.audit.add(withDetails(audit, { sessions_ended: ended }));
      return ended;
    });
    this.core.logger.info(
      { event: 'other_sessions_ended', outcome: 'success', userId: user.id, count },
      'other sessions ended',
    );
    return count;
  }

  /**
   * Proves the password again on this session, which then counts as recently authenticated for
   * `reauthenticationWindowMs`; for an account with a second factor on, a code too: at the strength of
   * its sign-in, or a stolen session and a phished password would be enough for every sensitive change. Guesses of
   * either share login's budget for the account, so a stolen session gains no oracle.
   */
  async reauthenticate(token: string, password: string, code?: string): Promise<{ authenticatedUntil: Date }> {
    const { user, session } = await this.core.requireLiveSession(token);
    const { factors } = this;
    const factorOn = await factors.isOn(user.id);
    await this.core.checkPassword(user, password, 'Password is incorrect', 'reauthenticate', {
      clearGuesses: !factorOn,
    });
    if (factorOn) await factors.requireReauthenticationCode(user, code);
    const now = this.core.clock.now();
    // Conditional on the credential state the password was verified in: a password change or reset that ended this
    // session meanwhile wins.
    const audit = this.core.audit.event('reauthenticate', 'success', self(user.id));
    const marked = await this.core.audited(audit, (tx) =>
      tx.sessions.markAuthenticated(session.tokenHash, user.credentialEpoch, now),
    );
    if (!marked) throw invalidSession();
    this.core.logger.info({ event: 'reauthenticate', outcome: 'success', userId: user.id }, 'password confirmed');
    return { authenticatedUntil: new Date(now.getTime() + this.core.options.reauthenticationWindowMs) };
  }

  /** The live sessions of a user, newest first (none is `current`). */
  async listOf(username: string): Promise<SessionView[]> {
    const user = await this.core.requireUser(username);
    return liveSessionViews(await this.core.store.sessions.list(user.id), this.core.clock.now(), this.core.options);
  }

  /** Ends one session of the user by its public id; `session_not_found` when the user has no such session. */
  async endOf(username: string, sessionId: string): Promise<void> {
    const user = await this.core.requireUser(username);
    const audit = this.core.audit.event('admin.sessions_ended', 'success', operator(user.id));
    if (!(await this.core.audited(audit, (tx) => tx.sessions.deleteById(user.id, sessionId)))) throw sessionNotFound();
    this.core.logger.info(
      { event: 'admin_sessions_ended', outcome: 'success', userId: user.id, sessionId },
      'session ended by an operator',
    );
  }

  /** Ends every session of the user; returns how many were live. */
  async endAllOf(username: string): Promise<number> {
    const user = await this.core.requireUser(username);
    const live = liveSessionViews(
      await this.core.store.sessions.list(user.id),
      this.core.clock.now(),
      this.core.options,
    ).length;
    await this.core.endAllSessions(
      user.id,
      this.core.audit.event('admin.sessions_ended', 'success', operator(user.id)),
    );
    this.core.logger.info(
      { event: 'admin_sessions_ended', outcome: 'success', userId: user.id, count: live },
      'all sessions ended by an operator',
    );
    return live;
  }
}
