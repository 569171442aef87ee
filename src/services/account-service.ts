import { randomUUID } from 'node:crypto';
import { EmailSender } from './email-sender';
import { AccountError, usernameTakenError } from '../errors/account-error';
import { GrantResult, RoleSummary, UserStore } from './user-store';
import { AccountOptions, ResolvedAccountOptions, resolveAccountOptions } from './account-options';
import { AccountLimit, AttemptLimiter, noAttemptLimits } from './attempt-limiter';
import { BackgroundTasks } from './background-tasks';
import { Clock, systemClock } from './clock';
import {
  expiryCutoffs,
  expiryRulesOf,
  isExpiredRegistration,
  registrationExpiresAt,
  sessionExpiresAt,
  sessionStatus,
  unverifiedCreatedBefore,
} from './expiry-rules';
import {
  canonicalEmail,
  canonicalUsername,
  checkPermissionName,
  checkRoleName,
  emailKeyOf,
  usernameKeyOf,
} from './identity';
import { MessageComposer } from './message-composer';
import { TokenSealer } from './token-sealer';
import { Logger, silentLogger } from './logger';
import type { MailDelivery } from './mail-delivery';
import { PasswordHasher } from './password-hasher';
import { PasswordPolicy } from './password-policy';
import { isRawToken, TokenHasher } from './token-hasher';
import { isRecentlyAuthenticated, liveSessionViews, newSession } from './session-views';
import {
  accountView,
  type AccountUser,
  type SessionClient,
  type SessionView,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
} from './types';

export interface AccountServiceDeps {
  store: UserStore;
  sender: EmailSender;
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
}

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
}

/** How many registrations of one address a resend mails a new link to (the newest ones). */
const RESEND_LIMIT = 3;

const invalidCredentials = () => new AccountError('invalid_credentials', 'Invalid username or password');
const invalidSession = () => new AccountError('invalid_session_token', 'Invalid or expired session token');
const invalidVerificationToken = () =>
  new AccountError('invalid_verification_token', 'Verification token is invalid or expired');
const invalidResetToken = () =>
  new AccountError('invalid_password_reset_token', 'Password reset token is invalid or expired');
const invalidEmailChangeToken = () =>
  new AccountError('invalid_email_change_token', 'Email change link is invalid or expired');
const sessionNotFound = () => new AccountError('session_not_found', 'No such session');
const reauthenticationRequired = () =>
  new AccountError('reauthentication_required', 'Confirm your password first (POST /reauthenticate)');

/** A live session and its user, as the core's own checks need them. */
interface LiveSession {
  session: StoredSession;
  user: StoredUser;
}

/**
 * The account core: every rule of registration, verification, sessions, password recovery and access control.
 * It knows the `UserStore` and `EmailSender` interfaces, a clock and its options; no HTTP, SQL or SMTP. Failures
 * are `AccountError`s with a code; the HTTP layer decides statuses.
 *
 * Email is never sent while a request waits, and never lost: each change that causes a message queues it in the
 * same store transaction (the outbox), and a delivery worker sends it afterwards, retrying with backoff. By default
 * that worker runs in this process (`delivery`), nudged right after each queued message.
 *
 * @example
 * const accounts = createAccountService({ store: new MemoryUserStore(), sender, options: { secretKey } });
 * await accounts.register({ username: 'alice', email: 'alice@example.com', password: 'correct horse battery' });
 */
export class AccountService {
  private readonly store: UserStore;
  private readonly sender: EmailSender;
  private readonly options: ResolvedAccountOptions;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly limiter: AttemptLimiter;
  private readonly tokens: TokenHasher;
  private readonly passwords: PasswordHasher;
  private readonly policy: PasswordPolicy;
  private readonly background: BackgroundTasks;
  private readonly messages: MessageComposer;
  /**
   * What delivers the queued mail, or null when another process does (`gatehouse worker`). It is nudged after every
   * change that queues mail; `delivery.start()` also makes it poll (for messages left by another process or a
   * restart), and `delivery.stop()` ends it gracefully.
   */
  readonly delivery: MailDelivery | null;

  constructor(deps: AccountServiceDeps) {
    this.store = deps.store;
    this.sender = deps.sender;
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
  }

  // --- Registration and verification ---------------------------------------------------------------------------

  /**
   * Stores a registration, unverified, and queues the verification email with it (one transaction). A taken username
   * is `invalid_username` (409 over HTTP: usernames are public). The address decides nothing a client can see: a
   * registration is a claim on it until its own link is confirmed, so a free address, one that other unverified
   * registrations claim and one that a verified account owns all get the same answer, the same rows written and the
   * same later login answer (`unverified_user`). Only the mail differs: the link goes to the address unless a
   * verified account owns it, whose owner is told of the attempt instead; that registration can never be confirmed.
   */
  async register(input: RegisterInput): Promise<void> {
    const name = canonicalUsername(input.username);
    const address = canonicalEmail(input.email);
    const password = this.policy.check(input.password, { username: name.username, email: address.email });
    // Checked before hashing so a taken name costs no argon2 work; the store's unique key still decides races.
    const holder = await this.store.findUserByUsernameKey(name.usernameKey);
    if (holder && !this.hasExpired(holder, this.clock.now())) throw usernameTakenError();

    const passwordHash = await this.passwords.hash(password);
    // One budget for whatever registration mails an address (the link or the owner's notice), taken on every path.
    const mayMail = await this.mayMail('register.email', address.emailKey);
    const now = this.clock.now();
    const id = randomUUID();
    const verificationToken = this.tokens.generate();
    const verification = this.tokenRow(verificationToken, { id, createdAt: now }, 'verify_email', now);
    const canNotify = typeof this.sender.sendRegistrationAttempt === 'function';
    const result = await this.store.createUser(
      { id, ...name, ...address, passwordHash, createdAt: now },
      verification,
      {
        link: mayMail ? this.messages.link('verification', now, verificationToken, verification.expiresAt) : undefined,
        ownerNotice: mayMail && canNotify ? this.messages.notice('registrationAttempt', now) : undefined,
        expiredUnverifiedBefore: unverifiedCreatedBefore(now, this.options.unverifiedRegistrationTtlMs),
      },
    );
    if (!result.ok) throw usernameTakenError();
    const outcome = result.addressOwned ? 'address_owned' : 'created';
    this.logger.info({ event: 'register', outcome, userId: id }, 'registration stored');
    this.delivery?.nudge();
  }

  /**
   * Consumes a verification token and makes its registration the verified owner of its address (single use,
   * purpose-bound, expiring): every other unverified registration of the address ends with it. A registration whose
   * address a verified account already owns is refused like a dead token.
   */
  async verifyEmail(token: string): Promise<void> {
    if (!isRawToken(token)) throw invalidVerificationToken();
    const now = this.clock.now();
    const user = await this.store.verifyEmail(this.tokens.hash(token), now, this.messages.notice('emailVerified', now));
    if (!user) {
      this.logger.info({ event: 'verify_email', outcome: 'invalid_token' }, 'email verification refused');
      throw invalidVerificationToken();
    }
    this.logger.info({ event: 'verify_email', outcome: 'verified', userId: user.id }, 'email verified');
    this.delivery?.nudge();
  }

  /**
   * The username of the live registration a verification token would confirm, without spending it, or null: the
   * confirmation page names the account, so that a person who did not choose that username does not confirm it.
   */
  async pendingVerification(token: string): Promise<{ username: string } | null> {
    if (!isRawToken(token)) return null;
    const now = this.clock.now();
    const user = await this.store.findUserByToken(this.tokens.hash(token), 'verify_email', now);
    return user && !user.verified && !this.hasExpired(user, now) ? { username: user.username } : null;
  }

  /**
   * Emails a fresh verification link (superseding older ones) to each live registration of the address, newest first
   * and at most `RESEND_LIMIT`, each naming its username; nothing when a verified account owns the address. Answers
   * the same, at the same speed, for every address, known or not, and malformed: the lookup itself runs after the
   * answer.
   */
  async resendVerification(email: string): Promise<void> {
    const emailKey = emailKeyOf(email);
    if (emailKey === null) return;
    this.background.run('resend_verification', {}, async () => {
      if (!(await this.mayMail('resend-verification.email', emailKey))) return;
      await this.background.retryWhileUnavailable(async () => {
        if (await this.store.findVerifiedUserByEmailKey(emailKey)) return;
        const now = this.clock.now();
        const createdAfter = unverifiedCreatedBefore(now, this.options.unverifiedRegistrationTtlMs);
        for (const user of await this.store.findUnverifiedUsersByEmailKey(emailKey, createdAfter, RESEND_LIMIT)) {
          await this.replaceTokenAndQueueLink(user, 'verify_email');
        }
      });
    });
  }

  // --- Sessions --------------------------------------------------------------------------------------------------

  /**
   * Exchanges username and password for a new session token (returned raw, once). Unknown user and wrong password
   * cost the same argon2 work and fail alike; `unverified_user` is revealed only after a correct password. `client`
   * (address and user agent) is recorded on the session for its owner's list, for display only.
   */
  async login(username: string, password: string, client?: SessionClient): Promise<string> {
    // Nobody's password is this long, so refusing it without hashing reveals nothing and bounds the work.
    if (this.policy.isOverlong(password)) throw invalidCredentials();
    const candidate = this.policy.normalize(password);
    const usernameKey = usernameKeyOf(username);
    // Keyed by the name asked for, not the user: unknown and existing names are throttled alike.
    await this.takePasswordGuess(usernameKey);
    const user = await this.store.findUserByUsernameKey(usernameKey);
    if (!user || this.hasExpired(user, this.clock.now())) {
      await this.passwords.verifyDummy(candidate);
      this.logger.info({ event: 'login', outcome: 'unknown_user' }, 'login failed');
      throw invalidCredentials();
    }
    if (!(await this.passwords.verify(user.passwordHash, candidate))) {
      this.logger.info({ event: 'login', outcome: 'wrong_password', userId: user.id }, 'login failed');
      throw invalidCredentials();
    }
    await this.forgetPasswordGuesses(usernameKey);
    if (!user.verified) {
      this.logger.info({ event: 'login', outcome: 'unverified', userId: user.id }, 'login refused');
      throw new AccountError('unverified_user', 'Email address is not verified');
    }
    const passwordHash = await this.rehashIfOutdated(user, candidate);

    const token = this.tokens.generate();
    const now = this.clock.now();
    const session = newSession(this.tokens.hash(token), user.id, now, sessionExpiresAt(now, this.options), client);
    // Conditional on the hash just verified: a reset, change or deletion that committed meanwhile wins.
    if (!(await this.store.createSession(session, passwordHash))) throw invalidCredentials();
    this.logger.info({ event: 'login', outcome: 'success', userId: user.id }, 'login succeeded');
    return token;
  }

  /**
   * The account of a live session (the host's view, `AccountUser`), or null for a token that is unknown, expired
   * (absolute or idle), removed or of a deleted user. One indexed read; a write only when the idle window is due to
   * move (at most once an interval).
   */
  async validateSession(token: string): Promise<AccountUser | null> {
    const live = await this.liveSession(token);
    return live && accountView(live.user);
  }

  /** Like `validateSession`, but a rejected token is `invalid_session_token`. */
  async authenticate(token: string): Promise<AccountUser> {
    return accountView(await this.requireSessionUser(token));
  }

  /** The stored session and user behind a live token, for the core's own checks; see `validateSession`. */
  private async liveSession(token: string): Promise<LiveSession | null> {
    if (!isRawToken(token)) return null;
    const tokenHash = this.tokens.hash(token);
    const found = await this.store.getSessionAndUser(tokenHash);
    if (!found) return null;
    const { session, user } = found;
    const now = this.clock.now();
    const status = sessionStatus(session, now, this.options);
    if (status === 'expired') {
      this.background.run('delete_expired_session', { userId: user.id }, () => this.store.deleteSession(tokenHash));
      return null;
    }
    if (status === 'refresh') await this.store.touchSession(tokenHash, now);
    return found;
  }

  private async requireLiveSession(token: string): Promise<LiveSession> {
    const live = await this.liveSession(token);
    if (!live) throw invalidSession();
    return live;
  }

  private async requireSessionUser(token: string): Promise<StoredUser> {
    return (await this.requireLiveSession(token)).user;
  }

  /** A live session whose password was proved recently (login or `reauthenticate`); else `reauthentication_required`. */
  private async requireRecentSession(token: string): Promise<LiveSession> {
    const live = await this.requireLiveSession(token);
    this.requireRecent(live);
    return live;
  }

  private requireRecent({ session, user }: LiveSession): void {
    if (isRecentlyAuthenticated(session, this.clock.now(), this.options.reauthenticationWindowMs)) return;
    this.logger.info(
      { event: 'reauthentication_required', outcome: 'refused', userId: user.id },
      'recent authentication required',
    );
    throw reauthenticationRequired();
  }

  /** Ends the presented session only. */
  async logout(token: string): Promise<void> {
    const user = await this.requireSessionUser(token);
    await this.store.deleteSession(this.tokens.hash(token));
    this.logger.info({ event: 'logout', outcome: 'success', userId: user.id }, 'session ended');
  }

  /** Ends every session of the token's user, and nobody else's. */
  async logoutAll(token: string): Promise<void> {
    const user = await this.requireSessionUser(token);
    await this.store.deleteUserSessions(user.id);
    this.logger.info({ event: 'logout_all', outcome: 'success', userId: user.id }, 'all sessions ended');
  }

  /** The live sessions of the token's user, newest first, with `current` on this one. */
  async listSessions(token: string): Promise<SessionView[]> {
    const { user, session } = await this.requireLiveSession(token);
    return liveSessionViews(await this.store.listSessions(user.id), this.clock.now(), this.options, session.tokenHash);
  }

  /**
   * Ends one of the user's own sessions by its public id, on every instance from the next request (each request
   * reads its session from the store). An unknown id and another user's session are the same `session_not_found`.
   * Ending a session other than this one needs a recent password (ASVS V7.5.2); ending this one is a logout.
   */
  async endSession(token: string, sessionId: string): Promise<void> {
    const live = await this.requireLiveSession(token);
    if (live.session.id !== sessionId) this.requireRecent(live);
    if (!(await this.store.deleteSessionById(live.user.id, sessionId))) {
      this.logger.info({ event: 'session_ended', outcome: 'not_found', userId: live.user.id }, 'no such session');
      throw sessionNotFound();
    }
    this.logger.info({ event: 'session_ended', outcome: 'success', userId: live.user.id, sessionId }, 'session ended');
  }

  /** Ends every session of the user but this one; needs a recent password. Returns how many ended. */
  async endOtherSessions(token: string): Promise<number> {
    const { user, session } = await this.requireRecentSession(token);
    const count = await this.store.deleteOtherSessions(user.id, session.tokenHash);
    this.logger.info(
      { event: 'other_sessions_ended', outcome: 'success', userId: user.id, count },
      'other sessions ended',
    );
    return count;
  }

  /**
   * Proves the password again on this session, which then counts as recently authenticated for
   * `reauthenticationWindowMs`. Guesses share login's budget for the account, so a stolen session gains no oracle.
   */
  async reauthenticate(token: string, password: string): Promise<{ authenticatedUntil: Date }> {
    const { user, session } = await this.requireLiveSession(token);
    await this.checkPassword(user, password, 'Password is incorrect', 'reauthenticate');
    const now = this.clock.now();
    // Conditional on the hash just verified: a password change or reset that ended this session meanwhile wins.
    if (!(await this.store.markSessionAuthenticated(session.tokenHash, user.passwordHash, now))) throw invalidSession();
    this.logger.info({ event: 'reauthenticate', outcome: 'success', userId: user.id }, 'password confirmed');
    return { authenticatedUntil: new Date(now.getTime() + this.options.reauthenticationWindowMs) };
  }

  // --- Email change ----------------------------------------------------------------------------------------------

  /**
   * Asks to change the address to `newEmail`: needs a recent password. The new address is mailed a single-use link
   * (superseding any earlier request); nothing changes until it is confirmed. The current address is told of the
   * request. A new address that a verified account owns gets the same answer, the same rows written and the same
   * notice to the current address, but no link: its owner is told instead, so the answer says nothing about who has
   * an account. `endOtherSessions` (default true): the other sessions end when the change is made.
   */
  async requestEmailChange(
    token: string,
    newEmail: string,
    options: { endOtherSessions?: boolean } = {},
  ): Promise<void> {
    if (typeof this.sender.sendEmailChange !== 'function') {
      throw new AccountError('email_change_unavailable', 'Email change is not available on this server');
    }
    const { user, session } = await this.requireRecentSession(token);
    const address = canonicalEmail(newEmail);
    if (address.emailKey === user.emailKey) {
      throw new AccountError('invalid_email', 'That is already the address of this account');
    }
    const mayMail = await this.mayMail('email-change.email', address.emailKey);
    const now = this.clock.now();
    const changeToken = this.tokens.generate();
    const change = {
      tokenHash: this.tokens.hash(changeToken),
      userId: user.id,
      newEmail: address.email,
      newEmailKey: address.emailKey,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.options.emailChangeTokenTtlMs),
      endOtherSessions: options.endOtherSessions ?? true,
      keepSessionId: session.id,
    };
    const canNotifyOwner = typeof this.sender.sendEmailChangeAttempt === 'function';
    const canNotifyRequester = typeof this.sender.sendEmailChangeRequested === 'function';
    const result = await this.store.requestEmailChange(
      change,
      {
        link: mayMail ? this.messages.link('emailChange', now, changeToken, change.expiresAt) : undefined,
        ownerNotice: mayMail && canNotifyOwner ? this.messages.notice('emailChangeAttempt', now) : undefined,
        requestedNotice: canNotifyRequester ? this.messages.notice('emailChangeRequested', now) : undefined,
      },
      session.tokenHash,
    );
    if (!result.ok) throw invalidSession();
    const outcome = result.addressOwned ? 'address_owned' : 'requested';
    this.logger.info({ event: 'email_change_requested', outcome, userId: user.id }, 'email change requested');
    this.delivery?.nudge();
  }

  /**
   * Spends an email-change link and makes its address the account's. Whether the address is still free is decided
   * here, inside the store's transaction; the previous address is told. A link is confirmed by this call (a POST),
   * never by opening it, so a mail scanner following links spends nothing.
   */
  async confirmEmailChange(token: string): Promise<void> {
    if (!isRawToken(token)) throw invalidEmailChangeToken();
    const now = this.clock.now();
    const canNotify = typeof this.sender.sendEmailChanged === 'function';
    const result = await this.store.confirmEmailChange(
      this.tokens.hash(token),
      now,
      canNotify ? this.messages.notice('emailChanged', now) : undefined,
    );
    if (result.outcome !== 'changed') {
      const outcome = result.outcome === 'taken' ? 'taken' : 'invalid_token';
      this.logger.info({ event: 'email_change', outcome }, 'email change refused');
      throw invalidEmailChangeToken();
    }
    this.logger.info(
      { event: 'email_change', outcome: 'changed', userId: result.user.id, endedSessions: result.endedSessions },
      'email address changed',
    );
    this.delivery?.nudge();
  }

  /** The account and new address an email-change link would confirm, without spending it; null when dead. */
  async pendingEmailChange(token: string): Promise<{ username: string; newEmail: string } | null> {
    if (!isRawToken(token)) return null;
    const found = await this.store.findEmailChange(this.tokens.hash(token), this.clock.now());
    return found && { username: found.user.username, newEmail: found.change.newEmail };
  }

  // --- Passwords -------------------------------------------------------------------------------------------------

  /**
   * Emails a reset token (superseding older ones) when the address belongs to a verified account (a registration
   * that was never confirmed has no password worth recovering: it registers again or resends its link). The answer is the same, and
   * as fast, whether or not it does: the lookup, the token and queueing the mail all happen after the answer, and
   * the delivery after that. Nothing changes until the token is used; the old password keeps working.
   */
  async requestPasswordReset(email: string): Promise<void> {
    const emailKey = emailKeyOf(email);
    if (emailKey === null) return;
    this.background.run('request_password_reset', {}, async () => {
      if (!(await this.mayMail('reset-request.email', emailKey))) return;
      const user = await this.background.retryWhileUnavailable(async () => {
        const found = await this.store.findVerifiedUserByEmailKey(emailKey);
        if (found) await this.replaceTokenAndQueueLink(found, 'reset_password');
        return found;
      });
      if (!user) {
        this.logger.info({ event: 'password_reset_requested', outcome: 'unknown_email' }, 'password reset requested');
        return;
      }
      this.logger.info(
        { event: 'password_reset_requested', outcome: 'sent', userId: user.id },
        'password reset requested',
      );
    });
  }

  /**
   * Sets a new password with a reset token. The password is judged before the token is spent, so a rejected
   * password leaves the link usable; then token, password and every session change in one atomic store step.
   * A reset does not log the user in.
   */
  async confirmPasswordReset(token: string, newPassword: string): Promise<void> {
    if (!isRawToken(token)) throw invalidResetToken();
    const tokenHash = this.tokens.hash(token);
    const owner = await this.store.findUserByToken(tokenHash, 'reset_password', this.clock.now());
    if (!owner) {
      this.logger.info({ event: 'password_reset', outcome: 'invalid_token' }, 'password reset refused');
      throw invalidResetToken();
    }
    const password = this.policy.check(newPassword, { username: owner.username, email: owner.email });
    const passwordHash = await this.passwords.hash(password);
    const now = this.clock.now();
    const user = await this.store.resetPassword(
      tokenHash,
      passwordHash,
      now,
      this.messages.notice('passwordChanged', now),
    );
    // Spent by a concurrent confirm between the two reads: exactly one of them wins.
    if (!user) throw invalidResetToken();
    this.logger.info({ event: 'password_reset', outcome: 'success', userId: user.id }, 'password reset');
    this.delivery?.nudge();
    // The owner got back in through their mailbox: a guesser's failures no longer hold them back.
    await this.forgetPasswordGuesses(user.usernameKey);
  }

  /** Replaces the password of the session's user after checking the current one; every session ends with it. */
  async changePassword(token: string, oldPassword: string, newPassword: string): Promise<void> {
    const user = await this.requireSessionUser(token);
    const sessionTokenHash = this.tokens.hash(token);
    await this.checkPassword(user, oldPassword, 'Current password is incorrect', 'password_change');
    const password = this.policy.check(newPassword, { username: user.username, email: user.email });
    if (password === this.policy.normalize(oldPassword)) {
      throw new AccountError('weak_password', 'New password must differ from the current one');
    }
    const passwordHash = await this.passwords.hash(password);
    const now = this.clock.now();
    const notice = this.messages.notice('passwordChanged', now);
    // Conditional on the hash we verified and on this session: a change, reset or logout-all that committed while
    // we hashed wins.
    if (!(await this.store.changePassword(user.id, user.passwordHash, passwordHash, now, notice, sessionTokenHash))) {
      throw invalidSession();
    }
    this.logger.info({ event: 'password_change', outcome: 'success', userId: user.id }, 'password changed');
    this.delivery?.nudge();
  }

  /**
   * Deletes the session's user, with every session, token and grant, after checking the password; the notice is
   * queued in the same transaction, addressed from the row before it goes, and sent after the deletion.
   */
  async deleteAccount(token: string, password: string): Promise<void> {
    const user = await this.requireSessionUser(token);
    await this.checkPassword(user, password, 'Password is incorrect', 'account_deleted');
    // Checked again in the deletion's transaction: a reset, change or logout-all that ended this session, or replaced
    // the password, while we verified it wins.
    const authorisation = { sessionTokenHash: this.tokens.hash(token), passwordHash: user.passwordHash };
    const notice = this.messages.notice('accountDeleted', this.clock.now());
    if (!(await this.store.deleteUser(user.id, notice, authorisation))) {
      this.logger.info(
        { event: 'account_deleted', outcome: 'credentials_changed', userId: user.id },
        'account deletion refused',
      );
      throw invalidSession();
    }
    this.logger.info({ event: 'account_deleted', outcome: 'success', userId: user.id }, 'account deleted');
    this.delivery?.nudge();
  }

  // --- Roles and permissions -------------------------------------------------------------------------------------

  /** Creates a role if it does not exist; true when it was created now. */
  async createRole(name: string): Promise<boolean> {
    return this.store.createRole(checkRoleName(name));
  }

  async createPermission(name: string): Promise<boolean> {
    return this.store.createPermission(checkPermissionName(name));
  }

  async grantPermission(role: string, permission: string): Promise<void> {
    expectGranted(await this.store.grantPermission(checkRoleName(role), checkPermissionName(permission)));
  }

  async revokePermission(role: string, permission: string): Promise<void> {
    expectGranted(await this.store.revokePermission(checkRoleName(role), checkPermissionName(permission)));
  }

  async grantRole(username: string, role: string): Promise<void> {
    const user = await this.requireUser(username);
    expectGranted(await this.store.grantRole(user.id, checkRoleName(role)));
  }

  async revokeRole(username: string, role: string): Promise<void> {
    const user = await this.requireUser(username);
    expectGranted(await this.store.revokeRole(user.id, checkRoleName(role)));
  }

  /** Whether the user holds the role, read from the store now (a demotion counts on the next request). */
  async hasRole(user: { id: string }, role: string): Promise<boolean> {
    const answer = await this.store.checkRole(user.id, checkRoleName(role));
    if (answer === 'unknown') throw new AccountError('unknown_role', `Unknown role: ${role}`);
    return answer === 'granted';
  }

  /** Whether any role of the user carries the permission. */
  async hasPermission(user: { id: string }, permission: string): Promise<boolean> {
    const answer = await this.store.checkPermission(user.id, checkPermissionName(permission));
    if (answer === 'unknown') throw new AccountError('unknown_permission', `Unknown permission: ${permission}`);
    return answer === 'granted';
  }

  async requireRole<U extends { id: string }>(user: U, role: string): Promise<U> {
    if (!(await this.hasRole(user, role))) throw permissionDenied();
    return user;
  }

  async requirePermission<U extends { id: string }>(user: U, permission: string): Promise<U> {
    if (!(await this.hasPermission(user, permission))) throw permissionDenied();
    return user;
  }

  listRoles(): Promise<RoleSummary[]> {
    return this.store.listRoles();
  }

  listPermissions(): Promise<string[]> {
    return this.store.listPermissions();
  }

  async listUserRoles(username: string): Promise<string[]> {
    return this.store.listUserRoles((await this.requireUser(username)).id);
  }

  // --- Sessions, for an operator ---------------------------------------------------------------------------------

  /** The live sessions of a user, newest first (none is `current`). */
  async listUserSessions(username: string): Promise<SessionView[]> {
    const user = await this.requireUser(username);
    return liveSessionViews(await this.store.listSessions(user.id), this.clock.now(), this.options);
  }

  /** Ends one session of the user by its public id; `session_not_found` when the user has no such session. */
  async endUserSession(username: string, sessionId: string): Promise<void> {
    const user = await this.requireUser(username);
    if (!(await this.store.deleteSessionById(user.id, sessionId))) throw sessionNotFound();
    this.logger.info(
      { event: 'admin_sessions_ended', outcome: 'success', userId: user.id, sessionId },
      'session ended by an operator',
    );
  }

  /** Ends every session of the user; returns how many were live. */
  async endAllUserSessions(username: string): Promise<number> {
    const user = await this.requireUser(username);
    const live = liveSessionViews(await this.store.listSessions(user.id), this.clock.now(), this.options).length;
    await this.store.deleteUserSessions(user.id);
    this.logger.info(
      { event: 'admin_sessions_ended', outcome: 'success', userId: user.id, count: live },
      'all sessions ended by an operator',
    );
    return live;
  }

  /**
   * Throws the overload error (503 `service_unavailable` with `Retry-After`) that a password hash asked for now would
   * get, before any lookup; does nothing while hashing has room. Registration, login, password change and reset, and
   * account deletion all hash: the HTTP layer calls this before validating their bodies, so that a flood
   * costs the event loop (which also hands the hashing threads their next job) as little as possible per refusal.
   * The answer is the same for every account, known or not.
   */
  refuseIfHashingSaturated(): void {
    this.passwords.refuseIfSaturated();
  }

  /**
   * Removes what has expired under the options in force: sessions and tokens past their expiry, idle sessions,
   * registrations never confirmed in time (freeing their usernames), and old sent or failed mail. Returns how many
   * rows went. The standalone server runs it periodically; a host calls it from a timer or a cron job.
   */
  removeExpired(now: Date = this.clock.now()): Promise<number> {
    return this.store.deleteExpired(expiryCutoffs(now, expiryRulesOf(this.options)));
  }

  /**
   * For a shutdown: the background lookups waiting to retry a store outage give up now (logged) instead of holding
   * the process for up to 15 s; `drain()` then returns as soon as the ones running finish.
   */
  stopRetries(): void {
    this.background.stop();
  }

  /**
   * Resolves when the work done after answering has finished (the lookups of reset and resend requests, which queue
   * their mail) and the in-process worker has attempted every message due now: for tests and scripts. A message
   * whose attempt failed waits for its retry; `drain()` does not.
   */
  async drain(): Promise<void> {
    await this.background.drain();
    await this.delivery?.drain();
  }

  // --- Helpers ---------------------------------------------------------------------------------------------------

  /** A new emailed token for the user, superseding older ones, and its link message: one store transaction. */
  private async replaceTokenAndQueueLink(user: StoredUser, purpose: TokenPurpose): Promise<void> {
    const token = this.tokens.generate();
    const now = this.clock.now();
    const row = this.tokenRow(token, user, purpose, now);
    const kind = purpose === 'verify_email' ? 'verification' : 'passwordReset';
    await this.store.replaceToken(row, this.messages.link(kind, now, token, row.expiresAt));
    this.delivery?.nudge();
  }

  /** A verification token never outlives its registration. */
  private tokenRow(
    token: string,
    user: Pick<StoredUser, 'id' | 'createdAt'>,
    purpose: TokenPurpose,
    now: Date,
  ): StoredToken {
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

  /** An unconfirmed registration past its time: as if it did not exist, until the clean-up removes it. */
  private hasExpired(user: StoredUser, now: Date): boolean {
    return isExpiredRegistration(user, now, this.options.unverifiedRegistrationTtlMs);
  }

  /** Re-authentication before a sensitive change; a failure is a security event of that change (`event`). */
  private async checkPassword(user: StoredUser, password: string, message: string, event: string): Promise<void> {
    // A stolen session must not make the current-password check an unthrottled oracle: it shares login's budget.
    await this.takePasswordGuess(user.usernameKey, user.id);
    const ok =
      !this.policy.isOverlong(password) &&
      (await this.passwords.verify(user.passwordHash, this.policy.normalize(password)));
    if (!ok) {
      this.logger.info({ event, outcome: 'wrong_password', userId: user.id }, 'current password refused');
      throw new AccountError('invalid_credentials', message);
    }
    await this.forgetPasswordGuesses(user.usernameKey);
  }

  /**
   * Counts a password guess against the account (`login.account`) before the password is checked, so concurrent
   * guesses cannot outrun the count; over budget or backing off, `rate_limited` without checking anything.
   */
  private async takePasswordGuess(usernameKey: string, userId?: string): Promise<void> {
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
  private forgetPasswordGuesses(usernameKey: string): Promise<void> {
    return this.limiter.reset('login.account', this.limitKey(usernameKey));
  }

  /** Whether one more message of this kind may go to the address; over budget it is skipped, unseen by the client. */
  private async mayMail(limit: AccountLimit, emailKey: string): Promise<boolean> {
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
  private limitKey(value: string): string {
    return this.tokens.hash(`limit:${value}`);
  }

  /**
   * Rehash on login when the parameters were raised; conditional, so a concurrent password change wins. Returns the
   * hash the user now has as far as this login knows.
   */
  private async rehashIfOutdated(user: StoredUser, password: string): Promise<string> {
    if (!this.passwords.needsRehash(user.passwordHash)) return user.passwordHash;
    const newHash = await this.passwords.hash(password);
    const replaced = await this.store.rehashPassword(user.id, user.passwordHash, newHash, this.clock.now());
    return replaced ? newHash : user.passwordHash;
  }

  private async requireUser(username: string): Promise<StoredUser> {
    const user = await this.store.findUserByUsernameKey(usernameKeyOf(username));
    if (!user) throw new AccountError('account_error', 'Unknown user');
    return user;
  }
}

function permissionDenied(): AccountError {
  return new AccountError('permission_denied', 'Permission denied');
}

function expectGranted(result: GrantResult): void {
  switch (result) {
    case 'ok':
      return;
    case 'unknown_role':
      throw new AccountError('unknown_role', 'Unknown role');
    case 'unknown_permission':
      throw new AccountError('unknown_permission', 'Unknown permission');
    case 'unknown_user':
      throw new AccountError('account_error', 'Unknown user');
  }
}
