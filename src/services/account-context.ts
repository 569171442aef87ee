import { isServiceAccountAddress } from './service-account-address';
import { AccountError, invalidLoginChallenge, invalidSession } from '../errors/account-error';
import { type AccountOptions, ResolvedAccountOptions, resolveAccountOptions } from './account-options';
import { AccountLimit, AttemptLimiter, noAttemptLimits } from './attempt-limiter';
import { anonymous, AuditTrail, self, withDetails, type RequestOrigin } from './audit-trail';
import type { AuditDetails, AuditEvent } from './audit-event';
import { type Awaitable, whenReady } from './awaitable';
import { BackgroundTasks } from './background-tasks';
import { Clock, systemClock } from './clock';
import type { EmailSender } from './email-sender';
import { toEmailSender, type LegacyEmailSender } from './legacy-email-sender';
import { isExpiredRegistration, registrationExpiresAt, sessionStatus } from './expiry-rules';
import { usernameKeyOf } from './identity';
import { Logger, silentLogger, withRequest } from './logger';
import type { MailDelivery } from './mail-delivery';
import { MessageComposer } from './message-composer';
import type { NewOutboxMessage } from './outbox-message';
import { PasswordHasher } from './password-hasher';
import { PasswordPolicy } from './password-policy';
import { isRecentlyAuthenticated } from './session-views';
import { isRawToken, TokenHasher } from './token-hasher';
import { TokenSealer } from './token-sealer';
import type { SessionCheck, SessionQuery, StoredSession, StoredToken, StoredUser, TokenPurpose } from './types';
import type { UserStore, UserStoreTransaction } from './user-store';
import type { WayInRule } from './ways-in';

/** What `AccountService` is made of (its parts share them through `AccountContext`). */
export interface AccountServiceDeps {
  store: UserStore;
  /** One with `send`; an old per-kind sender is still accepted (see `fromLegacySender`). */
  sender: EmailSender | LegacyEmailSender;
  options: AccountOptions;
  clock?: Clock;
  /** Security events are logged here; without one, nothing is. */
  logger?: Logger;
  /** Per-account and per-address limits (see `AttemptLimiter`); without one, nothing is counted. */
  limiter?: AttemptLimiter;
  /**
   * Delivers the queued mail (see `MailDelivery`); without one, mail waits in the outbox for a worker elsewhere
   * (`gatehouse worker`). `createAccountService` gives the service the in-process outbox worker.
   */
  delivery?: MailDelivery;
  /**
   * Where the service's own audit events come from (a request id and client address), read when one is written.
   * Without one, they carry neither. The HTTP layer does not use it: each of its requests gets a view of the service
   * with the request's origin fixed (`forRequest`).
   */
  origin?: () => RequestOrigin | undefined;
}

/** A live session and its user, as the core's own checks need them. */
export interface LiveSession {
  session: StoredSession;
  user: StoredUser;
}

export const reauthenticationRequired = (): AccountError =>
  new AccountError('reauthentication_required', 'Confirm your password first (POST /reauthenticate)');

/**
 * What every part of the account core stands on: its dependencies, resolved once, and the checks they share (the
 * session behind a token, a recent password, the account's password-guess budget, the mail budget of an address).
 * `AccountService` holds the account's life and sign-in and hands out the parts (`SessionDirectory`, `EmailChanges`,
 * `SecondFactors`, `AccessControl`, `Administration`), each holding the rules of its own area and reaching the rest
 * through this. The changes several parts make, each composed with its messages and audit event in one store
 * transaction, are here too.
 */
export class AccountContext {
  readonly store: UserStore;
  readonly sender: EmailSender;
  readonly options: ResolvedAccountOptions;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limiter: AttemptLimiter;
  readonly tokens: TokenHasher;
  readonly passwords: PasswordHasher;
  readonly policy: PasswordPolicy;
  readonly background: BackgroundTasks;
  readonly messages: MessageComposer;
  readonly delivery: MailDelivery | null;
  readonly audit: AuditTrail;
  /** The request this view serves (`forOrigin`); undefined on the service's own context. */
  readonly origin?: RequestOrigin;

  constructor(deps: AccountServiceDeps) {
    this.store = deps.store;
    this.sender = toEmailSender(deps.sender);
    this.options = resolveAccountOptions(deps.options);
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? silentLogger;
    this.limiter = deps.limiter ?? noAttemptLimits;
    this.tokens = new TokenHasher(this.options.secretKey);
    this.passwords = new PasswordHasher(this.options.hashing, this.options.hashingQueue, this.logger);
    this.policy = new PasswordPolicy(this.options.password);
    this.background = new BackgroundTasks(this.logger);
    this.messages = new MessageComposer(new TokenSealer(this.options.secretKey), this.options.outbox.giveUpAfterMs);
    this.delivery = deps.delivery ?? null;
    this.audit = new AuditTrail(this.store, this.clock, deps.origin);
  }

  /**
   * This context as one request sees it: the same store, options, keys and hashing queue, with a logger and an audit
   * trail (and background tasks, which log) whose lines and events carry the request's id and client address.
   */
  forOrigin(origin: RequestOrigin): AccountContext {
    const logger = withRequest(this.logger, origin);
    return Object.create(this, {
      origin: { value: origin },
      logger: { value: logger },
      audit: { value: this.audit.from(origin) },
      background: { value: this.background.withLogger(logger) },
    }) as AccountContext;
  }

  /** The stored session and user behind a live token, for the core's own checks; see `validateSession`. */
  async liveSession(token: string): Promise<LiveSession | null> {
    if (!isRawToken(token)) return null;
    const tokenHash = this.tokens.hash(token);
    const found = await this.store.sessions.findWithUser(tokenHash);
    if (!found) return null;
    const { session, user } = found;
    return (await this.stillLive(tokenHash, session, user.id, user.disabledAt !== null)) ? found : null;
  }

  /**
   * `liveSession` for the check of every authenticated request: the same rules on the store's narrow read
   * (`sessions.check`), which leaves the password hash and the session's client details in the database. With
   * `access`, the same read answers a guard's role or permission, or the user's role in an organization, too.
   *
   * Not async: where the store reads synchronously (SQLite) and the idle window need not move, the answer is a value.
   * Store failures reject, as they did.
   */
  checkSession(token: string, access?: SessionQuery): Awaitable<SessionCheck | null> {
    if (!isRawToken(token)) return null;
    const tokenHash = this.tokens.hash(token);
    try {
      return whenReady(this.store.sessions.check(tokenHash, access), (found) => {
        if (!found) return null;
        return whenReady(this.stillLive(tokenHash, found, found.user.id, found.disabled), (live) =>
          live ? found : null,
        );
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Whether a session found by its token still counts; an expired one is deleted in the background, and a live one
   * whose idle window is due to move is touched first. A promise only when it writes.
   */
  private stillLive(
    tokenHash: string,
    session: Pick<StoredSession, 'expiresAt' | 'lastSeenAt'>,
    userId: string,
    disabled: boolean,
  ): boolean | Promise<boolean> {
    // Disabling ended its sessions; this also refuses one a racing login slipped in (the store refuses that too).
    if (disabled) return false;
    const now = this.clock.now();
    const status = sessionStatus(session, now, this.options);
    if (status === 'expired') {
      this.background.run('delete_expired_session', { userId }, () =>
        this.store.transaction((tx) => tx.sessions.delete(tokenHash)),
      );
      return false;
    }
    return status === 'refresh' ? this.store.sessions.touch(tokenHash, now).then(() => true) : true;
  }

  async requireLiveSession(token: string): Promise<LiveSession> {
    const live = await this.liveSession(token);
    if (!live) throw invalidSession();
    return live;
  }

  async requireSessionUser(token: string): Promise<StoredUser> {
    return (await this.requireLiveSession(token)).user;
  }

  /** A live session whose password was proved recently (login or `reauthenticate`); else `reauthentication_required`. */
  async requireRecentSession(token: string): Promise<LiveSession> {
    const live = await this.requireLiveSession(token);
    this.requireRecent(live);
    return live;
  }

  requireRecent({ session, user }: LiveSession): void {
    if (isRecentlyAuthenticated(session, this.clock.now(), this.options.reauthenticationWindowMs)) return;
    this.logger.info(
      { event: 'reauthentication_required', outcome: 'refused', userId: user.id },
      'recent authentication required',
    );
    throw reauthenticationRequired();
  }

  /**
   * A new emailed token for the user, superseding older ones, its link message and `audit`: one store transaction.
   * False, and nothing written, when the account is disabled or gone (a disabled account gets no new link).
   */
  async replaceTokenAndQueueLink(user: StoredUser, purpose: TokenPurpose, audit?: AuditEvent): Promise<boolean> {
    const token = this.tokens.generate();
    const now = this.clock.now();
    const row = this.tokenRow(token, user, purpose, now);
    const kind = purpose === 'verify_email' ? 'verification' : 'passwordReset';
    const link = this.messages.link(kind, now, token, row.expiresAt);
    const replaced = await this.store.transaction(async (tx) => {
      // The link goes to the account as the store has it now (its address may have changed since `user` was read).
      const owner = await tx.tokens.replace(row, { kind, at: link.createdAt });
      if (!owner) return false;
      await tx.outbox.add(link, owner);
      if (audit) await tx.audit.add(audit);
      return true;
    });
    if (replaced) this.delivery?.nudge();
    return replaced;
  }

  /**
   * A change that returns the user it changed (null: nothing changed), with the notice to that user (when one is
   * sent) and `audit`, about that user, written in its transaction.
   */
  changeOfUser(
    work: (tx: UserStoreTransaction) => Promise<StoredUser | null>,
    notice: NewOutboxMessage | undefined,
    audit: AuditEvent,
  ): Promise<StoredUser | null> {
    return this.store.transaction(async (tx) => {
      const user = await work(tx);
      if (!user) return null;
      if (notice) await tx.outbox.add(notice, user);
      await tx.audit.add(audit.subjectId === user.id ? audit : { ...audit, subjectId: user.id });
      return user;
    });
  }

  /**
   * A change whose `audit` is written in its transaction when `changed` says it happened (by default: when the
   * change answered true); returns its result.
   */
  audited<T>(
    audit: AuditEvent,
    work: (tx: UserStoreTransaction) => Promise<T>,
    changed: (result: T) => boolean = (result) => result === true,
  ): Promise<T> {
    return this.store.transaction(async (tx) => {
      const result = await work(tx);
      if (changed(result)) await tx.audit.add(audit);
      return result;
    });
  }

  /**
   * Ends every session of the user (and any pending email change), with `audit`, its details counting them
   * (`sessions_ended`); `audit.at` stamps the links that fail with the change. Null, and nothing written, when the
   * user does not exist.
   */
  endAllSessions(userId: string, audit: AuditEvent): Promise<number | null> {
    return this.store.transaction(async (tx) => {
      const ended = await tx.sessions.deleteAll(userId, audit.at);
      if (ended !== null) await tx.audit.add(withDetails(audit, { sessions_ended: ended }));
      return ended;
    });
  }

  /** A verification token never outlives its registration. */
  tokenRow(token: string, user: Pick<StoredUser, 'id' | 'createdAt'>, purpose: TokenPurpose, now: Date): StoredToken {
    const ttl = purpose === 'verify_email' ? this.options.verificationTokenTtlMs : this.options.resetTokenTtlMs;
    let expiresAt = now.getTime() + ttl;
    if (purpose === 'verify_email') {
      expiresAt = Math.min(
        expiresAt,
        registrationExpiresAt(user.createdAt, this.options.unverifiedRegistrationTtlMs).getTime(),
      );
    }
    return { tokenHash: this.tokens.hash(token), userId: user.id, purpose, expiresAt: new Date(expiresAt) };
  }

  /**
   * What counts as a way to sign in now (the rule an account keeps one by): the providers configured now, so that an
   * identity of a provider taken out of the configuration does not count.
   */
  wayInRule(): WayInRule {
    return { identityProviders: [...(this.options.oidc?.providers.keys() ?? [])] };
  }

  /** An unconfirmed registration past its time: as if it did not exist, until the clean-up removes it. */
  hasExpired(user: StoredUser, now: Date): boolean {
    return isExpiredRegistration(user, now, this.options.unverifiedRegistrationTtlMs);
  }

  /**
   * Re-authentication before a sensitive change; a failure is a security event of that change (`event`). Returns the
   * hash the password was verified against, for a write conditional on it. An account without a password fails as a
   * wrong password does.
   */
  async checkPassword(
    user: StoredUser,
    password: string,
    message: string,
    event: 'password_change' | 'account_deleted' | 'reauthenticate',
    { clearGuesses = true }: { clearGuesses?: boolean } = {},
  ): Promise<string> {
    // A stolen session must not make the current-password check an unthrottled oracle: it shares login's budget.
    await this.takePasswordGuess(user.usernameKey, user.id);
    const overlong = this.policy.isOverlong(password);
    const hash = overlong ? null : await this.store.passwords.hashOf(user.id);
    const ok = !overlong && (await this.passwords.verifyOrDummy(hash, this.policy.normalize(password)));
    // (`ok` implies a hash: none verifies nothing.)
    if (!ok || hash === null) {
      this.logger.info({ event, outcome: 'wrong_password', userId: user.id }, 'current password refused');
      await this.audit.record(event, 'wrong_password', self(user.id));
      throw new AccountError('invalid_credentials', message);
    }
    // Not when a code is still to come: for an account with a second factor only a right code clears the count.
    if (clearGuesses) await this.forgetPasswordGuesses(user.usernameKey);
    return hash;
  }

  /**
   * Counts a password guess against the account (`login.account`) before the password is checked, so concurrent
   * guesses cannot outrun the count; over budget or backing off, `rate_limited` without checking anything.
   */
  async takePasswordGuess(usernameKey: string, userId?: string): Promise<void> {
    const decision = await this.limiter.consume('login.account', this.limitKey(usernameKey));
    if (decision.allowed) return;
    this.logger.warn(
      { event: 'rate_limited', outcome: 'refused', limit: 'login.account', ...(userId ? { userId } : {}) },
      'too many password attempts',
    );
    throw new AccountError('rate_limited', 'Too many attempts; try again later', {
      retryAfterSeconds: decision.retryAfterMs / 1000,
    });
  }

  /** The right password was given (or a reset proved the mailbox): failures and backoff start over. */
  forgetPasswordGuesses(usernameKey: string): Promise<void> {
    return this.limiter.reset('login.account', this.limitKey(usernameKey));
  }

  /**
   * Whether one more message of this kind may go to the address; over budget it is skipped, unseen by the client.
   * Never to a service account's address: it has no mailbox (`service-account-address.ts`).
   */
  async mayMail(limit: AccountLimit, emailKey: string): Promise<boolean> {
    if (isServiceAccountAddress(emailKey)) return false;
    const decision = await this.limiter.consume(limit, this.limitKey(emailKey));
    if (!decision.allowed) {
      this.logger.warn(
        { event: 'rate_limited', outcome: 'mail_skipped', limit },
        'mail skipped: address over its limit',
      );
    }
    return decision.allowed;
  }

  /** Limiter keys are keyed hashes: no username or address sits in Redis or memory in the clear. */
  limitKey(value: string): string {
    return this.tokens.hash(`limit:${value}`);
  }

  /**
   * Rehash on login when the parameters were raised; conditional, so a concurrent password change wins. The password
   * is the same, so the credential state does not move.
   */
  async rehashIfOutdated(user: StoredUser, passwordHash: string, password: string): Promise<void> {
    if (!this.passwords.needsRehash(passwordHash)) return;
    const newHash = await this.passwords.hash(password);
    const now = this.clock.now();
    await this.store.transaction((tx) => tx.passwords.rehash(user.id, passwordHash, newHash, now));
  }

  /**
   * The live login challenge of a raw token and its user, read without counting an answer. Refused
   * (`invalid_login_challenge`, logged and audited with `details`) when it is unknown, expired or out of answers, or
   * when a password reset or change has moved the credential state since. Every way of answering it (an app code, a
   * recovery code, a passkey) starts here.
   */
  async liveLoginChallenge(
    challengeToken: string,
    details?: AuditDetails,
  ): Promise<{ user: StoredUser; tokenHash: string }> {
    if (!isRawToken(challengeToken)) throw invalidLoginChallenge();
    const tokenHash = this.tokens.hash(challengeToken);
    // Read first, counting nothing: the account is known only from the challenge.
    const found = await this.store.loginChallenges.find(tokenHash, this.clock.now());
    const user = found && (await this.store.users.findById(found.userId));
    if (
      !found ||
      !user ||
      found.attempts >= this.options.loginChallengeMaxAttempts ||
      found.credentialEpoch !== user.credentialEpoch
    ) {
      throw await this.refuseLoginChallenge(user?.id ?? null, details);
    }
    return { user, tokenHash };
  }

  /** Logs and audits a refused login challenge; the error to throw. */
  async refuseLoginChallenge(userId: string | null, details?: AuditDetails): Promise<AccountError> {
    this.logger.info({ event: 'login_second_factor', outcome: 'invalid_challenge' }, 'second factor refused');
    await this.audit.record('login_second_factor', 'invalid_challenge', anonymous(userId), details);
    return invalidLoginChallenge();
  }

  async requireUser(username: string): Promise<StoredUser> {
    const user = await this.store.users.findByUsernameKey(usernameKeyOf(username));
    if (!user) throw new AccountError('account_error', 'Unknown user');
    return user;
  }
}
