import { randomUUID } from 'node:crypto';
import { AccountError, invalidSession, usernameTakenError } from '../errors/account-error';
import { AccessControl } from './administration/access-control';
import { AccountContext, type AccountServiceDeps } from './account-context';
import { Administration } from './administration/administration';
import { anonymous, self, type RequestOrigin } from './audit-trail';
import { type Awaitable, whenReady } from './awaitable';
import { EmailChanges } from './email-changes/email-changes';
import { OidcSignIn } from './oidc/oidc-sign-in';
import {
  afterAccountDeletion,
  deleteAloneOrganizations,
  organizationsEndingWith,
  refusedForLastOwner,
} from './account-deletion-rules';
import { Organizations } from './organizations/organizations';
import { ApiKeys } from './api-keys/api-keys';
import { checkApiKey } from './api-keys/api-key-check';
import type { ApiKeyCheck } from './api-keys/api-key-records';
import { revokingApiKeysWith, type PasswordChangeOptions } from './api-key-revocations';
import { requestPasswordReset } from './password-reset-requests';
import { Passkeys } from './passkeys/passkeys';
import { expiryCutoffs, expiryRulesOf, unverifiedCreatedBefore } from './expiry-rules';
import { canonicalEmail, canonicalUsername, emailKeyOf, usernameKeyOf } from './identity';
import type { MailDelivery } from './mail-delivery';
import { SecondFactors, type SignInResult } from './second-factor/second-factors';
import { canSend } from './sender-operations';
import { SessionDirectory } from './sessions/session-directory';
import { issueSession, PASSWORD_ONLY } from './session-issuer';
import { isRawToken } from './token-hasher';
import type {
  AccessAnswer,
  AccessQuery,
  AccountUser,
  AuthMethod,
  SessionCheck,
  SessionClient,
  SessionQuery,
} from './types';

/** A live session's user as the host sees it, how the session was authenticated, and the access answer asked for. */
export interface AuthenticatedSession {
  user: AccountUser;
  /** `StoredSession.methods`: `@Authorized('mfa')` asks for `mfa` among them. */
  methods: readonly AuthMethod[];
  /** Present when `authenticateSession` was given an `AccessQuery`. */
  access?: AccessAnswer;
  /**
   * Present when `checkSession` was given a `MembershipQuery` (and the store answered it): the user's role in that
   * organization, null when not a member.
   */
  membership?: string | null;
}

export type { AccountServiceDeps } from './account-context';

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
}

/** How many registrations of one address a resend mails a new link to (the newest ones). */
const RESEND_LIMIT = 3;

const invalidCredentials = () => new AccountError('invalid_credentials', 'Invalid username or password');
const invalidVerificationToken = () =>
  new AccountError('invalid_verification_token', 'Verification token is invalid or expired');
const invalidResetToken = () =>
  new AccountError('invalid_password_reset_token', 'Password reset token is invalid or expired');

/**
 * The account core: every rule of registration, verification, sessions, password recovery and access control.
 * It knows the `UserStore` and `EmailSender` interfaces, a clock and its options; no HTTP, SQL or SMTP. Failures
 * are `AccountError`s with a code; the HTTP layer decides statuses. An account's life (registration, sign-in,
 * password, deletion) is here; each other area is a part it hands out (`sessions`, `emailChanges`, `secondFactors`,
 * `access`, `admin`).
 *
 * Email is never sent while a request waits, and never lost: each change that causes a message queues it in the
 * same store transaction (the outbox), and a delivery worker sends it afterwards, retrying with backoff. By default
 * that worker runs in this process (`delivery`), nudged right after each queued message.
 *
 * @example
 * const accounts = createAccountService({ store: new MemoryUserStore(), sender, options: { secretKey } });
 * await accounts.register({ username: 'alice', email: 'alice@example.com', password: 'correct horse battery' });
 * await accounts.access.grantRole('alice', 'editor');
 */
export class AccountService {
  private readonly core: AccountContext;
  /**
   * The sessions a person sees and ends, re-authentication (`reauthenticate`), and an operator's view of a user's
   * sessions (`listOf`, `endOf`, `endAllOf`).
   */
  readonly sessions: SessionDirectory;
  /** Changing the address of an account: `request`, `confirm`, `pending`. */
  readonly emailChanges: EmailChanges;
  /**
   * The second factor: answering a sign-in's challenge (`completeSignIn`), enrolment, recovery codes, switching it
   * off (and an operator's `disableFor`).
   */
  readonly secondFactors: SecondFactors;
  /**
   * Passkeys (WebAuthn): adding, listing, renaming and removing them, and signing in, answering a second-factor
   * challenge or re-authenticating with one. Off (`passkeys_not_configured`) unless `AccountOptions.passkeys` is set.
   */
  readonly passkeys: Passkeys;
  /**
   * Sign-in with OpenID providers: starting a flow, its callback, the one-time code's exchange, and the identities
   * an account has linked. Off (`unknown_provider`) unless `AccountOptions.oidc` is set.
   */
  readonly oidc: OidcSignIn;
  /**
   * Organizations: making one, members and roles from the one template, invitations, ownership. On by default;
   * off (`organization_not_found`) when `AccountOptions.organizations` is `false`.
   */
  readonly organizations: Organizations;
  /** API keys: a person's own, service accounts' (`admin`), revocation by possession (docs/api-keys.md). */
  readonly apiKeys: ApiKeys;
  /** Roles and permissions: whether a user holds one (`hasRole`, `requirePermission`...), and the operator's changes. */
  readonly access: AccessControl;
  /** Administration of other accounts and the audit trail, each action checked against its permission. */
  readonly admin: Administration;
  /**
   * What delivers the queued mail, or null when another process does (`gatehouse worker`). It is nudged after every
   * change that queues mail; `delivery.start()` also makes it poll (for messages left by another process or a
   * restart), and `delivery.stop()` ends it gracefully.
   */
  readonly delivery: MailDelivery | null;

  constructor(deps: AccountServiceDeps) {
    this.core = new AccountContext(deps);
    this.secondFactors = new SecondFactors(this.core);
    this.sessions = new SessionDirectory(this.core, this.secondFactors);
    this.emailChanges = new EmailChanges(this.core);
    this.passkeys = new Passkeys(this.core);
    this.oidc = new OidcSignIn(this.core, this.secondFactors);
    this.organizations = new Organizations(this.core);
    this.apiKeys = new ApiKeys(this.core);
    this.admin = new Administration(this.core);
    this.access = new AccessControl(this.core, this.admin);
    this.delivery = this.core.delivery;
  }

  /**
   * This service as one request sees it: the same store, keys, hashing queue and mail delivery, with every log line
   * and audit event of its calls carrying the request's id and client address. The HTTP layer hands its routes one
   * (`accountsFor(req)` in `gatehouse`); a host calling the core from its own routes can do the same.
   *
   * Why not AsyncLocalStorage, as before: on Node 20 it hooks every promise of the process, about a tenth of the CPU
   * of `GET /me` (measured in pairs; docs/performance.md), for the few calls that log. A view costs a few objects, and
   * only where it is asked for.
   */
  forRequest(origin: RequestOrigin): AccountService {
    const core = this.core.forOrigin(origin);
    // Each part keeps its state (the second factor's sealer, say) and sees the request's context in place of this one,
    // and the request's view of the parts it uses.
    const rebase = <Part extends object>(part: Part, parts: PropertyDescriptorMap = {}): Part =>
      Object.create(part, { core: { value: core }, ...parts }) as Part;
    const secondFactors = rebase(this.secondFactors);
    const admin = rebase(this.admin);
    return Object.create(this, {
      core: { value: core },
      sessions: { value: rebase(this.sessions, { factors: { value: secondFactors } }) },
      emailChanges: { value: rebase(this.emailChanges) },
      passkeys: { value: rebase(this.passkeys) },
      oidc: { value: rebase(this.oidc, { factors: { value: secondFactors } }) },
      organizations: { value: rebase(this.organizations) },
      apiKeys: { value: rebase(this.apiKeys) },
      secondFactors: { value: secondFactors },
      admin: { value: admin },
      access: { value: rebase(this.access, { admin: { value: admin } }) },
    }) as AccountService;
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
    const password = this.core.policy.check(input.password, { username: name.username, email: address.email });
    // Checked before hashing so a taken name costs no argon2 work; the store's unique key still decides races.
    const holder = await this.core.store.users.findByUsernameKey(name.usernameKey);
    if (holder && !this.core.hasExpired(holder, this.core.clock.now())) throw usernameTakenError();

    const passwordHash = await this.core.passwords.hash(password);
    // One budget for whatever registration mails an address (the link or the owner's notice), taken on every path.
    const mayMail = await this.core.mayMail('register.email', address.emailKey);
    const now = this.core.clock.now();
    const id = randomUUID();
    const verificationToken = this.core.tokens.generate();
    const verification = this.core.tokenRow(verificationToken, { id, createdAt: now }, 'verify_email', now);
    const canNotify = canSend(this.core.sender, 'registrationAttempt');
    const user = { id, ...name, ...address, passwordHash, createdAt: now };
    const expiredBefore = unverifiedCreatedBefore(now, this.core.options.unverifiedRegistrationTtlMs);
    const link = mayMail
      ? this.core.messages.link('verification', now, verificationToken, verification.expiresAt)
      : undefined;
    const ownerNotice = mayMail && canNotify ? this.core.messages.notice('registrationAttempt', now) : undefined;
    // The same event whoever holds the address, written only with the registration.
    const audit = this.core.audit.event('register', 'success', anonymous(id));
    const result = await this.core.store.transaction(async (tx) => {
      const created = await tx.users.create(user, verification, expiredBefore);
      if (!created.ok) return created;
      // The link to the address, or, when a verified account owns it, the notice to that owner instead.
      const message = created.owner ? ownerNotice : link;
      if (message) await tx.outbox.add(message, created.owner ?? created.user);
      await tx.audit.add(audit);
      return created;
    });
    if (!result.ok) throw usernameTakenError();
    const outcome = result.owner ? 'address_owned' : 'created';
    this.core.logger.info({ event: 'register', outcome, userId: id }, 'registration stored');
    this.core.delivery?.nudge();
  }

  /**
   * Consumes a verification token and makes its registration the verified owner of its address (single use,
   * purpose-bound, expiring): every other unverified registration of the address ends with it. A registration whose
   * address a verified account already owns is refused like a dead token.
   */
  async verifyEmail(token: string): Promise<void> {
    if (!isRawToken(token)) throw invalidVerificationToken();
    const now = this.core.clock.now();
    const tokenHash = this.core.tokens.hash(token);
    const user = await this.core.changeOfUser(
      (tx) => tx.users.confirmAddress(tokenHash, now),
      this.core.messages.notice('emailVerified', now),
      // About the account the token names, known once the store finds it.
      this.core.audit.event('verify_email', 'success', anonymous(null)),
    );
    if (!user) {
      this.core.logger.info({ event: 'verify_email', outcome: 'invalid_token' }, 'email verification refused');
      await this.core.audit.record('verify_email', 'invalid_token', anonymous(null));
      throw invalidVerificationToken();
    }
    this.core.logger.info({ event: 'verify_email', outcome: 'verified', userId: user.id }, 'email verified');
    this.core.delivery?.nudge();
  }

  /**
   * The username of the live registration a verification token would confirm, without spending it, or null: the
   * confirmation page names the account, so that a person who did not choose that username does not confirm it.
   */
  async pendingVerification(token: string): Promise<{ username: string } | null> {
    if (!isRawToken(token)) return null;
    const now = this.core.clock.now();
    const user = await this.core.store.tokens.findUser(this.core.tokens.hash(token), 'verify_email', now);
    return user && !user.verified && !this.core.hasExpired(user, now) ? { username: user.username } : null;
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
    this.core.background.run('resend_verification', {}, async () => {
      if (!(await this.core.mayMail('resend-verification.email', emailKey))) return;
      await this.core.background.retryWhileUnavailable(async () => {
        if (await this.core.store.users.findVerifiedByEmailKey(emailKey)) return;
        const now = this.core.clock.now();
        const createdAfter = unverifiedCreatedBefore(now, this.core.options.unverifiedRegistrationTtlMs);
        for (const user of await this.core.store.users.findUnverifiedByEmailKey(emailKey, createdAfter, RESEND_LIMIT)) {
          if (user.disabledAt === null) await this.core.replaceTokenAndQueueLink(user, 'verify_email');
        }
      });
    });
  }

  // --- Sessions --------------------------------------------------------------------------------------------------

  /**
   * Exchanges username and password for a new session token (returned raw, once). Unknown user and wrong password
   * cost the same argon2 work and fail alike; `unverified_user` is revealed only after a correct password. `client`
   * (address and user agent) is recorded on the session for its owner's list, for display only. An account with a
   * second factor gets no session here (`second_factor_required`): use `signIn`, which returns its challenge.
   */
  async login(username: string, password: string, client?: SessionClient): Promise<string> {
    const result = await this.signIn(username, password, client);
    if (result.kind === 'session') return result.token;
    throw new AccountError('second_factor_required', 'This account signs in with a second factor; use signIn');
  }

  /**
   * `login` for every account: a session, or, for an account with a second factor, the challenge a code must
   * answer (`secondFactors.completeSignIn`).
   */
  async signIn(username: string, password: string, client?: SessionClient): Promise<SignInResult> {
    // Nobody's password is this long, so refusing it without hashing reveals nothing and bounds the work.
    if (this.core.policy.isOverlong(password)) throw invalidCredentials();
    const candidate = this.core.policy.normalize(password);
    const usernameKey = usernameKeyOf(username);
    // Keyed by the name asked for, not the user: unknown and existing names are throttled alike.
    await this.core.takePasswordGuess(usernameKey);
    const found = await this.core.store.passwords.findForSignIn(usernameKey);
    if (!found || this.core.hasExpired(found.user, this.core.clock.now())) {
      await this.core.passwords.verifyDummy(candidate);
      this.core.logger.info({ event: 'login', outcome: 'unknown_user' }, 'login failed');
      // Not the name asked for: a password typed into the username field must not land in the trail.
      await this.core.audit.record('login', 'unknown_user', anonymous(null));
      throw invalidCredentials();
    }
    const { user, passwordHash } = found;
    // An account without a password answers as a wrong password does, after the same argon2 work.
    if (!(await this.core.passwords.verifyOrDummy(passwordHash, candidate))) {
      this.core.logger.info({ event: 'login', outcome: 'wrong_password', userId: user.id }, 'login failed');
      await this.core.audit.record('login', 'wrong_password', anonymous(user.id));
      throw invalidCredentials();
    }
    if (!user.verified) {
      await this.core.forgetPasswordGuesses(usernameKey);
      this.core.logger.info({ event: 'login', outcome: 'unverified', userId: user.id }, 'login refused');
      await this.core.audit.record('login', 'unverified', anonymous(user.id));
      throw new AccountError('unverified_user', 'Email address is not verified');
    }
    // Like `unverified_user`, told only to whoever knows the password, so it reveals nothing to a guesser.
    if (user.disabledAt !== null) {
      this.core.logger.info({ event: 'login', outcome: 'disabled', userId: user.id }, 'login refused');
      await this.core.audit.record('login', 'disabled', anonymous(user.id));
      throw accountDisabled();
    }
    // The same password, so the credential state (and every session under it) stays.
    if (passwordHash !== null) await this.core.rehashIfOutdated(user, passwordHash, candidate);
    // With a second factor, the password alone clears nothing: the guesses at codes that follow count on top of the
    // password guesses, and only a right code starts the count over.
    const challenge = await this.secondFactors.challengeFor(user, client);
    if (challenge) return challenge;
    await this.core.forgetPasswordGuesses(usernameKey);

    // Issued under the credential state the password was checked in: a reset, change or deletion that committed
    // meanwhile wins.
    const token = await issueSession(this.core, {
      userId: user.id,
      methods: PASSWORD_ONLY,
      credentialEpoch: user.credentialEpoch,
      client,
      audit: this.core.audit.event('login', 'success', self(user.id)),
    });
    if (token === null) throw invalidCredentials();
    this.core.logger.info({ event: 'login', outcome: 'success', userId: user.id }, 'login succeeded');
    return { kind: 'session', token };
  }

  /**
   * The account of a live session (the host's view, `AccountUser`), or null for a token that is unknown, expired
   * (absolute or idle), removed or of a deleted user. One indexed read; a write only when the idle window is due to
   * move (at most once an interval).
   */
  async validateSession(token: string): Promise<AccountUser | null> {
    return (await this.core.checkSession(token))?.user ?? null;
  }

  /** Like `validateSession`, but a rejected token is `invalid_session_token`. */
  async authenticate(token: string): Promise<AccountUser> {
    const check = await this.core.checkSession(token);
    if (!check) throw invalidSession();
    return check.user;
  }

  /**
   * `authenticate`, and how the session was authenticated (`@Authorized('mfa')` reads it). With `access`,
   * the same read also answers whether the user holds that role or permission (`requireAccess` in `access-control.ts` judges the answer):
   * a guard's whole check in one read.
   */
  async authenticateSession(token: string, access?: AccessQuery): Promise<AuthenticatedSession> {
    const session = await this.checkSession(token, access);
    if (!session) throw invalidSession();
    return session;
  }

  /**
   * `authenticateSession` for the HTTP layer's check of every request: null for a rejected token, and the session
   * itself rather than a promise when the store read it synchronously and nothing had to be written. Store failures
   * reject.
   */
  checkSession(token: string, access?: SessionQuery): Awaitable<AuthenticatedSession | null> {
    return whenReady(this.core.checkSession(token, access), authenticatedSession);
  }

  /**
   * The live API key behind a bearer, with its owner and (for `permission`) the owner's answer, in one read; null for
   * any other string. Rules and last-use recording: `api-keys/api-key-check.ts`; the guards judge the key's scopes.
   */
  checkApiKey(key: string, permission?: string, ip?: string | null): Awaitable<ApiKeyCheck | null> {
    return checkApiKey(this.core, key, permission, ip === undefined ? (this.core.origin?.ip ?? null) : ip);
  }

  /**
   * The user's role in the organization, read on its own (committed state, no cache), or null when not a member (or
   * either is unknown): for a guard whose session check answered something else, or a store that did not answer the
   * membership in the check. The caller has authenticated the user and checked the id well-formed.
   */
  async organizationRole(organizationId: string, userId: string): Promise<string | null> {
    const membership = await this.core.store.organizations.membership(organizationId, userId);
    return membership?.role ?? null;
  }

  /** Ends the presented session only. */
  async logout(token: string): Promise<void> {
    const user = await this.core.requireSessionUser(token);
    const tokenHash = this.core.tokens.hash(token);
    const audit = this.core.audit.event('logout', 'success', self(user.id));
    await this.core.audited(audit, (tx) => tx.sessions.delete(tokenHash));
    this.core.logger.info({ event: 'logout', outcome: 'success', userId: user.id }, 'session ended');
  }

  /** Ends every session of the token's user, and nobody else's. */
  async logoutAll(token: string): Promise<void> {
    const user = await this.core.requireSessionUser(token);
    const audit = this.core.audit.event('logout_all', 'success', self(user.id));
    await this.core.endAllSessions(user.id, audit);
    this.core.logger.info({ event: 'logout_all', outcome: 'success', userId: user.id }, 'all sessions ended');
  }

  // --- Passwords -------------------------------------------------------------------------------------------------

  /**
   * Emails a reset token (superseding older ones) when the address belongs to a verified account (a registration
   * that was never confirmed has no password worth recovering: it registers again or resends its link). The answer is the same, and
   * as fast, whether or not it does: the lookup, the token and queueing the mail all happen after the answer, and
   * the delivery after that. Nothing changes until the token is used; the old password keeps working.
   */
  async requestPasswordReset(email: string): Promise<void> {
    requestPasswordReset(this.core, email);
  }

  /**
   * Sets a new password with a reset token. The password is judged before the token is spent, so a rejected
   * password leaves the link usable; then token, password and every session change in one atomic store step (with
   * every API key when `revokeApiKeys`; kept by default). A reset does not log the user in.
   */
  async confirmPasswordReset(token: string, newPassword: string, options?: PasswordChangeOptions): Promise<void> {
    if (!isRawToken(token)) throw invalidResetToken();
    const tokenHash = this.core.tokens.hash(token);
    const owner = await this.core.store.tokens.findUser(tokenHash, 'reset_password', this.core.clock.now());
    if (!owner) {
      this.core.logger.info({ event: 'password_reset', outcome: 'invalid_token' }, 'password reset refused');
      await this.core.audit.record('password_reset', 'invalid_token', anonymous(null));
      throw invalidResetToken();
    }
    const password = this.core.policy.check(newPassword, { username: owner.username, email: owner.email });
    const passwordHash = await this.core.passwords.hash(password);
    const now = this.core.clock.now();
    const keys = revokingApiKeysWith(this.core, options, anonymous, 'password_reset', (tx) =>
      tx.passwords.reset(tokenHash, passwordHash, now),
    );
    const user = await this.core.changeOfUser(
      keys.work,
      this.core.messages.notice('passwordChanged', now),
      this.core.audit.event('password_reset', 'success', anonymous(owner.id)),
    );
    // Spent by a concurrent confirm between the two reads: exactly one of them wins.
    if (!user) throw invalidResetToken();
    this.core.logger.info({ event: 'password_reset', outcome: 'success', userId: user.id }, 'password reset');
    keys.logged(user.id);
    this.core.delivery?.nudge();
    // The owner got back in through their mailbox: a guesser's failures no longer hold them back.
    await this.core.forgetPasswordGuesses(user.usernameKey);
  }

  /** Replaces the password after checking the current one; every session (with `revokeApiKeys`, every key) ends. */
  async changePassword(
    token: string,
    oldPassword: string,
    newPassword: string,
    options?: PasswordChangeOptions,
  ): Promise<void> {
    const user = await this.core.requireSessionUser(token);
    const sessionTokenHash = this.core.tokens.hash(token);
    const oldHash = await this.core.checkPassword(
      user,
      oldPassword,
      'Current password is incorrect',
      'password_change',
    );
    const password = this.core.policy.check(newPassword, { username: user.username, email: user.email });
    if (password === this.core.policy.normalize(oldPassword)) {
      throw new AccountError('weak_password', 'New password must differ from the current one');
    }
    const passwordHash = await this.core.passwords.hash(password);
    const now = this.core.clock.now();
    const notice = this.core.messages.notice('passwordChanged', now);
    // Conditional on the hash we verified and on this session: a change, reset or logout-all that committed while
    // we hashed wins.
    const keys = revokingApiKeysWith(this.core, options, self, 'password_change', (tx) =>
      tx.passwords.change(user.id, oldHash, passwordHash, now, sessionTokenHash),
    );
    const changed = await this.core.changeOfUser(
      keys.work,
      notice,
      this.core.audit.event('password_change', 'success', self(user.id)),
    );
    if (!changed) throw invalidSession();
    this.core.logger.info({ event: 'password_change', outcome: 'success', userId: user.id }, 'password changed');
    keys.logged(user.id);
    this.core.delivery?.nudge();
  }

  /**
   * Deletes the session's user, with every session, token and grant, after checking the password; the notice is
   * queued in the same transaction, addressed from the row before it goes, and sent after the deletion.
   */
  async deleteAccount(token: string, password: string): Promise<void> {
    const user = await this.core.requireSessionUser(token);
    await this.core.checkPassword(user, password, 'Password is incorrect', 'account_deleted');
    // Checked again in the deletion's transaction: a reset, change or logout-all that ended this session, or replaced
    // the password, while we verified it wins.
    const authorisation = { sessionTokenHash: this.core.tokens.hash(token), credentialEpoch: user.credentialEpoch };
    const notice = this.core.messages.notice('accountDeleted', this.core.clock.now());
    const audit = this.core.audit.event('account_deleted', 'success', self(user.id));
    const deleted = await refusedForLastOwner(this.core, audit, () =>
      this.core.store.transaction(async (tx) => {
        // `last_owner` (undoing the transaction) while the account is the only owner of an organization with others.
        const alone = await organizationsEndingWith(tx, user.id);
        // `audit.at` stamps the links that die with the account.
        const result = await tx.users.delete(user.id, audit.at, { authorisation });
        if (result.outcome !== 'deleted') return null;
        // The organizations it was the only member of go with it.
        await deleteAloneOrganizations(this.core, tx, alone, self(user.id));
        // Addressed from the row as it was before it went.
        await tx.outbox.add(notice, result.user);
        await tx.audit.add(audit);
        return alone;
      }),
    );
    if (!deleted) {
      this.core.logger.info(
        { event: 'account_deleted', outcome: 'credentials_changed', userId: user.id },
        'account deletion refused',
      );
      throw invalidSession();
    }
    this.core.logger.info({ event: 'account_deleted', outcome: 'success', userId: user.id }, 'account deleted');
    this.core.delivery?.nudge();
    await afterAccountDeletion(this.core, deleted);
  }

  /**
   * Throws the overload error (503 `service_unavailable` with `Retry-After`) that a password hash asked for now would
   * get, before any lookup; does nothing while hashing has room. Registration, login, password change and reset, and
   * account deletion all hash: the HTTP layer calls this before validating their bodies, so that a flood
   * costs the event loop (which also hands the hashing threads their next job) as little as possible per refusal.
   * The answer is the same for every account, known or not.
   */
  refuseIfHashingSaturated(): void {
    this.core.passwords.refuseIfSaturated();
  }

  /**
   * Removes what has expired under the options in force: sessions and tokens past their expiry, idle sessions,
   * registrations never confirmed in time (freeing their usernames), and old sent or failed mail. Returns how many
   * rows went. The standalone server runs it periodically; a host calls it from a timer or a cron job.
   */
  removeExpired(now: Date = this.core.clock.now()): Promise<number> {
    return this.core.store.deleteExpired(expiryCutoffs(now, expiryRulesOf(this.core.options)));
  }

  /**
   * For a shutdown: the background lookups waiting to retry a store outage give up now (logged) instead of holding
   * the process for up to 15 s; `drain()` then returns as soon as the ones running finish.
   */
  stopRetries(): void {
    this.core.background.stop();
  }

  /**
   * Resolves when the work done after answering has finished (the lookups of reset and resend requests, which queue
   * their mail) and the in-process worker has attempted every message due now: for tests and scripts. A message
   * whose attempt failed waits for its retry; `drain()` does not.
   */
  async drain(): Promise<void> {
    await this.core.background.drain();
    await this.core.delivery?.drain();
  }
}

function accountDisabled(): AccountError {
  return new AccountError('account_disabled', 'This account has been disabled');
}

/** What a caller of the service learns of a checked session: not its deadlines or the account's disabled mark. */
function authenticatedSession(check: SessionCheck | null): AuthenticatedSession | null {
  if (!check) return null;
  const session: AuthenticatedSession = { user: check.user, methods: check.methods, access: check.access };
  if (check.membership !== undefined) session.membership = check.membership;
  return session;
}
