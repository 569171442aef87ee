import { AccountError, invalidLoginChallenge } from '../../errors/account-error';
import { AccountContext, LiveSession } from '../account-context';
import { anonymous, operator, self, withDetails, type AuditParties } from '../audit-trail';
import type { OutboxKind } from '../outbox-message';
import { canSend } from '../sender-operations';
import { newRecoveryCodes, normalizeRecoveryCode, recoveryCodeKey } from './recovery-codes';
import { provedBy } from '../credential-kinds';
import { PASSWORD_AND_TOTP, firstFactorKind, issueSession } from '../session-issuer';
import { recordedClient } from '../session-views';
import { SealError, TokenSealer } from '../token-sealer';
import { newTotpSecret, totpStepOf, totpUri } from './totp';
import type {
  AuthMethod,
  SecondFactorMethod,
  SessionClient,
  SignInResult,
  StoredSecondFactor,
  StoredUser,
} from '../types';

export type { SecondFactorMethod, SignInResult } from '../types';

/** The answer to a challenge, or the proof a change of the second factor asks for: one of the two. */
export interface SecondFactorProof {
  code?: string;
  recoveryCode?: string;
}

// Its own key, derived from the secret key: a leak of the outbox's key (or the reverse) opens nothing here.
const TOTP_SEALING = { salt: 'gatehouse.second-factor', info: 'totp-secret v1' };

const invalidCode = () => new AccountError('invalid_second_factor_code', 'The code is not right');
const alreadyEnabled = () => new AccountError('second_factor_already_enabled', 'Two-factor sign-in is already on');
const notEnabled = () => new AccountError('second_factor_not_enabled', 'Two-factor sign-in is not on');
const setupReplaced = () =>
  new AccountError(
    'second_factor_setup_replaced',
    'Set-up was started again meanwhile; use a code of the newest secret',
  );

/**
 * The second factor: an authenticator app (TOTP) with single-use recovery codes. A right password for an account
 * with one gives a challenge, not a session; the session comes when the challenge is answered with a code. Every
 * code works once (a used time step, or an earlier one, is refused; a recovery code is deleted as it is used), a
 * challenge takes `loginChallengeMaxAttempts` answers, and each answer counts against the account like a password
 * guess. Changing the factor needs a recent password and a code; a password reset leaves it on.
 */
export class SecondFactors {
  private readonly sealer: TokenSealer;

  constructor(private readonly core: AccountContext) {
    this.sealer = new TokenSealer(core.options.secretKey, TOTP_SEALING);
  }

  /**
   * After a right password: a challenge when the account has a second factor on, else null (a session follows). The
   * challenge holds the credential state the password was checked in: a reset or change since kills it.
   */
  async challengeFor(
    user: StoredUser,
    client: SessionClient = {},
    firstFactor: 'pwd' | 'fed' = 'pwd',
  ): Promise<SignInResult | null> {
    const methods = await this.methodsOf(user.id);
    if (methods.length === 0) return null;
    const challengeToken = this.core.tokens.generate();
    const now = this.core.clock.now();
    const expiresAt = new Date(now.getTime() + this.core.options.loginChallengeTtlMs);
    const { ip, userAgent } = recordedClient(client);
    const challenge = {
      tokenHash: this.core.tokens.hash(challengeToken),
      userId: user.id,
      credentialEpoch: user.credentialEpoch,
      attempts: 0,
      createdAt: now,
      expiresAt,
      ip,
      userAgent,
      firstFactor,
    };
    const audit = this.core.audit.event('login', 'challenge_issued', anonymous(user.id));
    await this.core.store.transaction(async (tx) => {
      await tx.loginChallenges.create(challenge);
      await tx.audit.add(audit);
    });
    this.core.logger.info({ event: 'login', outcome: 'challenge_issued', userId: user.id }, 'second factor asked for');
    return { kind: 'challenge', challengeToken, expiresAt, methods };
  }

  /**
   * Answers a login challenge: the session token when the code is right. The answer is counted before the code is
   * checked, so concurrent guesses cannot exceed the challenge's budget; the challenge is spent by the one answer
   * that succeeds. A password reset or change since the challenge was given kills it. The account's guess budget is
   * asked first: an answer it refuses (`rate_limited`) spends none of the challenge's answers.
   */
  async completeSignIn(challengeToken: string, proof: SecondFactorProof, client?: SessionClient): Promise<string> {
    const { user, tokenHash } = await this.core.liveLoginChallenge(challengeToken);
    const now = this.core.clock.now();
    const { store, options, logger } = this.core;
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const challenge = await store.transaction((tx) =>
      tx.loginChallenges.takeAttempt(tokenHash, now, options.loginChallengeMaxAttempts),
    );
    if (!challenge) throw await this.core.refuseLoginChallenge(user.id);
    if (!(await this.proves(user, proof, now, anonymous(user.id)))) {
      logger.info({ event: 'login_second_factor', outcome: 'wrong_code', userId: user.id }, 'second factor refused');
      await this.core.audit.record('login_second_factor', 'wrong_code', anonymous(user.id));
      throw invalidCode();
    }
    // Disabled while the challenge waited: disabling deleted it, but a code already under way must not get through.
    if (user.disabledAt !== null) throw invalidLoginChallenge();
    await this.core.forgetPasswordGuesses(user.usernameKey);
    if (!(await store.transaction((tx) => tx.loginChallenges.consume(tokenHash)))) throw invalidLoginChallenge();
    const method = methodOf(proof);
    // Issued under the credential state the password was checked in: a reset that committed meanwhile wins.
    const token = await issueSession(this.core, {
      userId: user.id,
      methods: provedBy(firstFactorKind(challenge.firstFactor), method),
      credentialEpoch: challenge.credentialEpoch,
      client: client ?? { ip: challenge.ip, userAgent: challenge.userAgent },
      audit: this.core.audit.event('login_second_factor', 'success', self(user.id), { method }),
    });
    if (token === null) throw invalidLoginChallenge();
    logger.info({ event: 'login_second_factor', outcome: 'success', userId: user.id }, 'login succeeded');
    return token;
  }

  /** Whether the signed-in account has a factor on, one waiting for its first code, and how many codes are left. */
  async status(token: string): Promise<{ enabled: boolean; pending: boolean; recoveryCodesLeft: number }> {
    const { user } = await this.core.requireLiveSession(token);
    const factor = await this.core.store.secondFactors.get(user.id);
    const enabled = factor?.enabled === true;
    const recoveryCodesLeft = enabled ? await this.core.store.secondFactors.countRecoveryCodes(user.id) : 0;
    return { enabled, pending: factor !== null && !enabled, recoveryCodesLeft };
  }

  /**
   * Starts enrolment on a recently authenticated session: a new secret, stored sealed and waiting for its first code
   * (a new start replaces a waiting one). The secret is returned now and never again.
   */
  async startEnrolment(token: string): Promise<{ secret: string; uri: string }> {
    const { user } = await this.core.requireRecentSession(token);
    if ((await this.core.store.secondFactors.get(user.id))?.enabled) throw alreadyEnabled();
    const secret = newTotpSecret();
    const now = this.core.clock.now();
    const factor = {
      userId: user.id,
      sealedSecret: this.sealer.seal(secret, user.id),
      enabled: false,
      createdAt: now,
      enabledAt: null,
      lastUsedStep: null,
    };
    const started = await this.core.store.transaction((tx) => tx.secondFactors.start(factor));
    if (!started) throw alreadyEnabled();
    this.core.logger.info(
      { event: 'second_factor_enrolment_started', outcome: 'success', userId: user.id },
      'second factor enrolment started',
    );
    return { secret, uri: totpUri(secret, this.core.options.totpIssuer, user.username) };
  }

  /**
   * Completes enrolment with a right code: the factor is on, this session counts as made with it, the other
   * sessions end (unless `endOtherSessions` is false: a session someone else holds must not outlive the factor
   * meant to keep them out), and the recovery codes are returned, once. Exactly the secret the code was checked
   * against is switched on: a start that replaced it meanwhile makes this `second_factor_setup_replaced`.
   */
  async confirmEnrolment(
    token: string,
    code: string,
    { endOtherSessions = true }: { endOtherSessions?: boolean } = {},
  ): Promise<{ recoveryCodes: string[] }> {
    const { user, session } = await this.core.requireRecentSession(token);
    const factor = await this.core.store.secondFactors.get(user.id);
    if (!factor) throw notEnabled();
    if (factor.enabled) throw alreadyEnabled();
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const now = this.core.clock.now();
    const secret = this.secretOf(factor);
    const step = secret === null ? null : totpStepOf(secret, code, now);
    if (step === null) throw invalidCode();
    await this.core.forgetPasswordGuesses(user.usernameKey);
    const recoveryCodes = newRecoveryCodes();
    const recoveryCodeHashes = recoveryCodes.map((typed) => this.recoveryCodeHash(user.id, typed));
    const notice = this.notice('secondFactorEnabled', now);
    const audit = this.core.audit.event('second_factor_enabled', 'success', self(user.id));
    const enabling = {
      userId: user.id,
      // The compare-and-set: the waiting factor whose secret the code just proved, and no other.
      sealedSecret: factor.sealedSecret,
      step,
      recoveryCodeHashes,
      now,
      // This session just proved the factor: it counts as made with it, as a sign-in with a code would.
      sessionTokenHash: session.tokenHash,
      methods: mergedMethods(session.methods, PASSWORD_AND_TOTP),
      endOtherSessions,
    };
    const enabled = await this.core.store.transaction(async (tx) => {
      const result = await tx.secondFactors.enable(enabling);
      if (!result) return false;
      if (notice) await tx.outbox.add(notice, result.user);
      await tx.audit.add(endOtherSessions ? withDetails(audit, { sessions_ended: result.sessionsEnded }) : audit);
      return true;
    });
    if (!enabled) throw await this.whyNotEnabled(user.id);
    this.core.logger.info({ event: 'second_factor_enabled', outcome: 'success', userId: user.id }, 'second factor on');
    this.core.delivery?.nudge();
    return { recoveryCodes };
  }

  /** Why an enabling changed nothing: the factor as it is now (on, gone, or another secret waiting). */
  private async whyNotEnabled(userId: string): Promise<AccountError> {
    const now = await this.core.store.secondFactors.get(userId);
    if (now?.enabled) return alreadyEnabled();
    if (!now) return notEnabled();
    this.core.logger.info(
      { event: 'second_factor_enabled', outcome: 'setup_replaced', userId },
      'second factor set-up was replaced while its confirmation was under way',
    );
    return setupReplaced();
  }

  /** New recovery codes in place of the old ones: a recent password and a code (TOTP or recovery). */
  async regenerateRecoveryCodes(token: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const { user } = await this.requireProvedChange(token, code, 'recovery_codes_regenerated');
    const now = this.core.clock.now();
    const recoveryCodes = newRecoveryCodes();
    const hashes = recoveryCodes.map((typed) => this.recoveryCodeHash(user.id, typed));
    const notice = this.notice('recoveryCodesRegenerated', now);
    const audit = this.core.audit.event('recovery_codes_regenerated', 'success', self(user.id));
    const replaced = await this.core.changeOfUser(
      (tx) => tx.secondFactors.replaceRecoveryCodes(user.id, hashes, now),
      notice,
      audit,
    );
    if (!replaced) throw notEnabled();
    this.core.logger.info(
      { event: 'recovery_codes_regenerated', outcome: 'success', userId: user.id },
      'recovery codes replaced',
    );
    this.core.delivery?.nudge();
    return { recoveryCodes };
  }

  /** Switches the second factor off: a recent password and a code (TOTP or recovery). */
  async disable(token: string, code: string): Promise<void> {
    const { user } = await this.requireProvedChange(token, code, 'second_factor_disabled');
    const now = this.core.clock.now();
    const audit = this.core.audit.event('second_factor_disabled', 'success', self(user.id));
    const disabled = await this.core.changeOfUser(
      (tx) => tx.secondFactors.disable(user.id, now),
      this.notice('secondFactorDisabled', now),
      audit,
    );
    if (!disabled) throw notEnabled();
    this.core.logger.info(
      { event: 'second_factor_disabled', outcome: 'success', userId: user.id },
      'second factor off',
    );
    this.core.delivery?.nudge();
  }

  /** An operator switches a user's second factor off (a lost phone and lost codes); true when one was on or waiting. */
  async disableFor(username: string): Promise<boolean> {
    const user = await this.core.requireUser(username);
    const now = this.core.clock.now();
    const disabled = await this.core.changeOfUser(
      (tx) => tx.secondFactors.disable(user.id, now),
      this.notice('secondFactorDisabled', now),
      this.core.audit.event('second_factor_disabled', 'by_operator', operator(user.id)),
    );
    if (disabled) {
      this.core.logger.info(
        { event: 'second_factor_disabled', outcome: 'by_operator', userId: user.id },
        'second factor switched off by an operator',
      );
      this.core.delivery?.nudge();
    }
    return disabled !== null;
  }

  /**
   * Whether the user has a second factor (an authenticator app, a passkey): re-authentication then asks for a code
   * after the password, or a passkey (`Passkeys.reauthenticate`).
   */
  async isOn(userId: string): Promise<boolean> {
    return (await this.methodsOf(userId)).length > 0;
  }

  /**
   * The ways the account's second factor can be proved: the authenticator app's codes and recovery codes when it is
   * on, and its passkeys (each is a second factor too) while passkeys are configured. None: no second factor.
   */
  private async methodsOf(userId: string): Promise<SecondFactorMethod[]> {
    const { store, options } = this.core;
    const [factor, passkeys] = await Promise.all([
      store.secondFactors.get(userId),
      options.passkeys ? store.passkeys.count(userId) : 0,
    ]);
    const methods: SecondFactorMethod[] = factor?.enabled ? ['totp', 'recovery_code'] : [];
    if (passkeys > 0) methods.push('passkey');
    return methods;
  }

  /**
   * The code that re-authentication asks for after the right password when the factor is on, as a sign-in's
   * challenge does: `second_factor_required` without one, and a wrong one counted against the account like a
   * password guess (only a right code clears the count). A recovery code is spent, a TOTP step used.
   */
  async requireReauthenticationCode(user: StoredUser, code: string | undefined): Promise<void> {
    if (code === undefined) {
      this.core.logger.info(
        { event: 'reauthenticate', outcome: 'second_factor_required', userId: user.id },
        'a code is needed after the password',
      );
      throw new AccountError('second_factor_required', 'Two-factor sign-in is on: send a code with the password');
    }
    await this.requireCode(user, code, 'reauthenticate');
  }

  /** A change of the factor: a recent password, a factor that is on, and a right code (counted as a guess). */
  private async requireProvedChange(
    token: string,
    code: string,
    change: 'recovery_codes_regenerated' | 'second_factor_disabled',
  ): Promise<LiveSession> {
    const live = await this.core.requireRecentSession(token);
    // The authenticator app's own changes: a passkey alone does not make it on.
    if ((await this.core.store.secondFactors.get(live.user.id))?.enabled !== true) throw notEnabled();
    await this.requireCode(live.user, code, change);
    return live;
  }

  /** A right code (TOTP or recovery, told apart by their shapes), counted as a guess first and spent when right. */
  private async requireCode(
    user: StoredUser,
    code: string,
    event: 'recovery_codes_regenerated' | 'second_factor_disabled' | 'reauthenticate',
  ): Promise<void> {
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const proof = /^[0-9]{6}$/.test(code) ? { code } : { recoveryCode: code };
    if (!(await this.proves(user, proof, this.core.clock.now(), self(user.id)))) {
      const logEvent = event === 'reauthenticate' ? event : 'second_factor_change';
      this.core.logger.info({ event: logEvent, outcome: 'wrong_code', userId: user.id }, 'code refused');
      await this.core.audit.record(event, 'wrong_code', self(user.id));
      throw invalidCode();
    }
    await this.core.forgetPasswordGuesses(user.usernameKey);
  }

  /** Whether the proof is right, spending it: the TOTP step is recorded as used, the recovery code marked used. */
  private async proves(user: StoredUser, proof: SecondFactorProof, now: Date, by: AuditParties): Promise<boolean> {
    const { store } = this.core;
    if (typeof proof.code === 'string') {
      const factor = await store.secondFactors.get(user.id);
      if (!factor?.enabled) return false;
      const secret = this.secretOf(factor);
      const step = secret === null ? null : totpStepOf(secret, proof.code, now);
      if (step === null) return false;
      if (await store.transaction((tx) => tx.secondFactors.useTotpStep(user.id, step, now))) return true;
      this.core.logger.info({ event: 'login_second_factor', outcome: 'replayed_step', userId: user.id }, 'code reused');
      return false;
    }
    if (typeof proof.recoveryCode === 'string') {
      const code = normalizeRecoveryCode(proof.recoveryCode);
      if (code === null) return false;
      const hash = this.core.tokens.hash(recoveryCodeKey(user.id, code));
      const audit = this.core.audit.event('recovery_code_used', 'success', by);
      const notice = this.notice('recoveryCodeUsed', now);
      const used = await this.core.changeOfUser(
        (tx) => tx.secondFactors.consumeRecoveryCode(user.id, hash, now),
        notice,
        audit,
      );
      if (!used) return false;
      this.core.logger.info({ event: 'recovery_code_used', outcome: 'success', userId: user.id }, 'recovery code used');
      this.core.delivery?.nudge();
      return true;
    }
    return false;
  }

  /**
   * The factor's secret, or null when it no longer opens: the secret key was changed since enrolment (the key that
   * sealed it is derived from it). No code can be right then; the person uses a recovery code or an operator
   * switches the factor off (`gatehouse second-factor disable`), and the log says why.
   */
  private secretOf(factor: StoredSecondFactor): string | null {
    try {
      return this.sealer.open(factor.sealedSecret, factor.userId);
    } catch (error) {
      if (!(error instanceof SealError)) throw error;
      this.core.logger.warn(
        { event: 'second_factor_unreadable', outcome: 'refused', userId: factor.userId },
        'the second factor secret does not open: was the secret key changed?',
      );
      return null;
    }
  }

  private recoveryCodeHash(userId: string, typed: string): string {
    return this.core.tokens.hash(recoveryCodeKey(userId, normalizeRecoveryCode(typed)!));
  }

  /** A notice of the second factor, queued only for a sender that carries its kind. */
  private notice(kind: OutboxKind, now: Date) {
    return canSend(this.core.sender, kind) ? this.core.messages.notice(kind, now) : undefined;
  }
}

/** The methods a session has after proving more: its own first, then the new ones, without repeats. */
function mergedMethods(had: readonly AuthMethod[], proved: readonly AuthMethod[]): AuthMethod[] {
  return [...new Set([...had, ...proved])];
}

function methodOf(proof: SecondFactorProof): SecondFactorMethod {
  return typeof proof.code === 'string' ? 'totp' : 'recovery_code';
}
