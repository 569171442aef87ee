import { timingSafeEqual } from 'node:crypto';
import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { anonymous, operator, self, type AuditParties } from '../audit-trail';
import { provedBy } from '../credential-kinds';
import type { OutboxKind } from '../outbox-message';
import { canSend } from '../sender-operations';
import { issueSession } from '../session-issuer';
import { isRawToken } from '../token-hasher';
import { TokenSealer } from '../token-sealer';
import type { AuthMethod, SessionClient, SignInResult, StoredUser } from '../types';
import { identityView, type IdentityView } from './identity-view';
import type { OidcFlowIntent, StoredIdentity, StoredOidcFlow, StoredOidcHandoff } from './identity-records';
import type { OidcProvider, OidcSettings } from './oidc-options';
import { domainAllowed, firstSignIn, newIdentity, providerAddress } from './provider-accounts';
import {
  newFlowSecrets,
  providerClient,
  ProviderRefusedError,
  ProviderUnavailableError,
  type ProviderAnswer,
  type ProviderClient,
} from './provider-client';

/** What starting a flow gives the HTTP layer: where to send the browser, and the cookie that binds the flow to it. */
export interface OidcStart {
  authorizationUrl: string;
  /** The cookie's value: only its hash is stored. */
  browserSecret: string;
  expiresAt: Date;
  /** The path the cookie is scoped to: the provider's callback below the prefix. */
  cookiePath: string;
  /** Whether the cookie is `Secure` (the callback is https). */
  secure: boolean;
}

/** The second factor's part a provider sign-in needs: a challenge when the account has a factor on. */
export interface FactorChallenges {
  challengeFor(
    user: StoredUser,
    client: SessionClient | undefined,
    firstFactor: 'pwd' | 'fed',
  ): Promise<SignInResult | null>;
}

export type OidcExchangeResult = SignInResult | { kind: 'linked'; identity: IdentityView };

/**
 * What the return page's fragment says when the provider's answer gave no code to exchange: the person cancelled at
 * the provider, the answer did not validate, or the provider did not answer.
 */
export type OidcFragmentError = 'cancelled' | 'provider_refused' | 'provider_unavailable' | 'email_required';

/** The one-time code of the return URL's fragment works this long: the page posts it at once. */
const HANDOFF_TTL_MS = 60_000;
/** No state, code or error a provider sends is near this long: refused before any hashing or lookup. */
const MAX_STATE_CHARS = 512;
// Its own key: the flows' verifiers and nonces open with nothing else the secret key protects.
const FLOW_SEALING = { salt: 'gatehouse.oidc', info: 'flow-secrets v1' };

const unknownProvider = () => new AccountError('unknown_provider', 'No such sign-in provider');
const unavailable = () =>
  new AccountError('provider_unavailable', 'The sign-in provider did not answer; retry shortly');
const flowInvalid = () =>
  new AccountError('oidc_flow_invalid', 'This sign-in is unknown, used, expired or from another browser; start again');
const invalidCode = () => new AccountError('invalid_oidc_code', 'The sign-in code is invalid or expired; start again');
const identityNotFound = () => new AccountError('identity_not_found', 'No such linked identity');

/**
 * Sign-in with OpenID providers (and GitHub's OAuth 2.0), `openid-client` building every request and validating
 * every answer (code flow, PKCE S256, state, nonce, `iss`: RFC 9700, OIDC Core §3.1.3.7). A flow is stored (hashed
 * state, sealed verifier and nonce) so any instance takes its callback, bound to the browser that started it by a
 * cookie, and consumed before its code is exchanged. The callback answers the return page with a one-time code in
 * the fragment, never a token; the page posts it (`exchange`) and gets the login answer. An identity is its
 * (issuer, subject), never its address: see `firstSignIn` for why an address never links by itself.
 */
export class OidcSignIn {
  private readonly clients = new Map<string, ProviderClient>();
  private readonly sealer: TokenSealer;

  constructor(
    private readonly core: AccountContext,
    private readonly factors: FactorChallenges,
  ) {
    this.sealer = new TokenSealer(core.options.secretKey, FLOW_SEALING);
  }

  /** The configured providers, in configuration order: what the pages show buttons for. */
  providers(): { id: string; name: string }[] {
    return [...(this.core.options.oidc?.providers.values() ?? [])].map(({ id, name }) => ({ id, name }));
  }

  // --- Starting a flow -------------------------------------------------------------------------------------------

  /** Starts a sign-in at the provider: the URL to send the browser to and the cookie binding the flow to it. */
  async startSignIn(providerId: string, returnTo: string | undefined): Promise<OidcStart> {
    return this.start(this.provider(providerId), returnTo, 'sign_in', null, null);
  }

  /**
   * Starts linking the provider to the session's account: only from a session that recently proved who holds it
   * (password, passkey or second factor: ory/kratos #2727), so a stolen idle session cannot add a way in.
   */
  async startLink(sessionToken: string, providerId: string, returnTo: string | undefined): Promise<OidcStart> {
    const provider = this.provider(providerId);
    const { user, session } = await this.core.requireRecentSession(sessionToken);
    return this.start(provider, returnTo, 'link', user.id, session.id);
  }

  // --- The provider's answer -------------------------------------------------------------------------------------

  /**
   * The provider's redirect back. The flow its state names is consumed first, whatever follows (a replayed callback
   * finds nothing), and must have been started by this browser (its cookie); then `openid-client` exchanges the code
   * and validates the answer. Answers where to send the browser: the flow's return page with a one-time code, or
   * with an error when the provider's answer gave nothing to exchange.
   */
  async callback(
    providerId: string,
    callbackUrl: URL,
    browserSecret: string | undefined,
    client?: SessionClient,
  ): Promise<{ redirectTo: string }> {
    const provider = this.provider(providerId);
    const state = callbackUrl.searchParams.get('state');
    if (!state || state.length > MAX_STATE_CHARS) return this.refuseFlow(provider, 'no_state');
    const now = this.core.clock.now();
    const stateHash = this.core.tokens.hash(state);
    const flow = await this.core.store.transaction((tx) => tx.oidc.consumeFlow(stateHash, now));
    if (!flow || flow.provider !== provider.id) return this.refuseFlow(provider, 'unknown_flow');
    if (!this.sameBrowser(flow, browserSecret)) return this.refuseFlow(provider, 'other_browser', flow.userId);
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError !== null) {
      return this.fragmentError(flow, provider, providerError === 'access_denied' ? 'cancelled' : 'provider_refused');
    }
    const secrets = this.openSecrets(flow);
    if (!secrets) return this.fragmentError(flow, provider, 'provider_refused');
    let answer: ProviderAnswer;
    try {
      answer = await this.client(provider).finish({
        callbackUrl,
        redirectUri: this.redirectUri(provider),
        state,
        nonce: secrets.nonce,
        codeVerifier: secrets.codeVerifier,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return this.fragmentError(flow, provider, 'provider_unavailable');
      if (error instanceof ProviderRefusedError) {
        return this.fragmentError(flow, provider, 'provider_refused', error.reason);
      }
      // Not sorted by the client: a bug of ours or the library's. The person gets the refusal, the log the name.
      this.core.logger.error(
        { event: 'login', outcome: 'provider_error', provider: provider.id, error: (error as Error)?.name },
        'provider answer could not be checked',
      );
      return this.fragmentError(flow, provider, 'provider_refused', 'unexpected');
    }
    const handoff =
      flow.intent === 'link'
        ? await this.linkAnswer(flow, provider, answer)
        : await this.signInAnswer(provider, answer);
    if (typeof handoff === 'string') return this.fragmentError(flow, provider, handoff);
    const code = this.core.tokens.generate();
    const created = this.core.clock.now();
    const row: StoredOidcHandoff = {
      ...handoff,
      codeHash: this.core.tokens.hash(code),
      ip: client?.ip ?? null,
      userAgent: client?.userAgent ?? null,
      createdAt: created,
      expiresAt: new Date(created.getTime() + HANDOFF_TTL_MS),
    };
    await this.core.store.transaction((tx) => tx.oidc.createHandoff(row));
    return { redirectTo: `${flow.returnTo}#code=${code}` };
  }

  /**
   * The return page's one-time code: exactly the answer of a password sign-in (a session, or the second factor's
   * challenge), or the identity a link flow linked. Single use, a minute long; every refusal decided at the
   * callback is told here, so no outcome travels in a URL.
   */
  async exchange(code: string, client?: SessionClient): Promise<OidcExchangeResult> {
    if (!isRawToken(code)) throw invalidCode();
    const now = this.core.clock.now();
    const codeHash = this.core.tokens.hash(code);
    const handoff = await this.core.store.transaction((tx) => tx.oidc.consumeHandoff(codeHash, now));
    if (!handoff) throw invalidCode();
    switch (handoff.outcome) {
      case 'link_required':
        throw new AccountError(
          'link_required',
          'An account already uses this address: sign in to it and link the provider from its security page',
        );
      case 'already_linked':
        throw new AccountError('identity_already_linked', 'This identity is linked to another account');
      case 'domain_not_allowed':
        throw new AccountError('email_domain_not_allowed', "The provider's address is not in an allowed domain");
      case 'linked':
        return { kind: 'linked', identity: await this.linkedView(handoff) };
      case 'sign_in':
        return this.signIn(handoff, client ?? { ip: handoff.ip, userAgent: handoff.userAgent });
    }
  }

  // --- Linked identities -----------------------------------------------------------------------------------------

  /** The session's account's linked identities, oldest first. */
  async identities(sessionToken: string): Promise<IdentityView[]> {
    const user = await this.core.requireSessionUser(sessionToken);
    return this.viewsOf(user.id);
  }

  /**
   * Unlinks one of the account's identities after a recent re-authentication; refused (`last_sign_in_method`) when
   * no password, passkey or identity of a configured provider would remain (better-auth #4742 forgot passkeys).
   */
  async unlink(sessionToken: string, identityId: string): Promise<void> {
    const { user } = await this.core.requireRecentSession(sessionToken);
    await this.removeFrom(user.id, identityId, true, self(user.id), 'oidc_unlinked');
  }

  /** The operator's view of a user's identities. */
  async identitiesOf(username: string): Promise<IdentityView[]> {
    const user = await this.core.requireUser(username);
    return this.viewsOf(user.id);
  }

  /** The operator unlinks regardless of the last way in: the person can still recover by the reset mail. */
  async unlinkFor(username: string, identityId: string): Promise<void> {
    const user = await this.core.requireUser(username);
    await this.removeFrom(user.id, identityId, false, operator(user.id), 'admin.oidc_unlinked');
  }

  // --- Inside ----------------------------------------------------------------------------------------------------

  private settings(): OidcSettings {
    const settings = this.core.options.oidc;
    if (!settings) throw unknownProvider();
    return settings;
  }

  private provider(providerId: string): OidcProvider {
    const provider = this.settings().providers.get(providerId);
    if (!provider) throw unknownProvider();
    return provider;
  }

  private client(provider: OidcProvider): ProviderClient {
    let client = this.clients.get(provider.id);
    if (!client) {
      client = providerClient(provider);
      this.clients.set(provider.id, client);
    }
    return client;
  }

  private redirectUri(provider: OidcProvider): string {
    return `${this.settings().callbackBase}/oidc/${provider.id}/callback`;
  }

  private async start(
    provider: OidcProvider,
    returnTo: string | undefined,
    intent: OidcFlowIntent,
    userId: string | null,
    sessionId: string | null,
  ): Promise<OidcStart> {
    const settings = this.settings();
    const target = returnTo ?? settings.returnUrls[0];
    // Exact match only: a prefix or pattern match is how open redirects get in (RFC 9700 §4.11).
    if (!settings.returnUrls.includes(target)) {
      throw new AccountError('return_url_not_allowed', 'This return URL is not allowed');
    }
    const secrets = await newFlowSecrets();
    let authorizationUrl: string;
    try {
      authorizationUrl = await this.client(provider).authorizationUrl({
        redirectUri: this.redirectUri(provider),
        state: secrets.state,
        nonce: secrets.nonce,
        codeChallenge: secrets.codeChallenge,
        scopes: [...provider.scopes],
      });
    } catch (error) {
      // A provider whose discovery names another issuer is as unusable as one that is down, and the deployer's to
      // fix: the log says which (never the secret), the person is told to come back later.
      if (error instanceof ProviderUnavailableError || error instanceof ProviderRefusedError) {
        const outcome = error instanceof ProviderRefusedError ? `refused:${error.reason}` : 'unavailable';
        this.core.logger.warn({ event: 'oidc_start', outcome, provider: provider.id }, 'provider unusable');
        throw unavailable();
      }
      throw error;
    }
    const browserSecret = this.core.tokens.generate();
    const now = this.core.clock.now();
    const expiresAt = new Date(now.getTime() + settings.flowTtlMs);
    const stateHash = this.core.tokens.hash(secrets.state);
    const flow: StoredOidcFlow = {
      stateHash,
      provider: provider.id,
      browserHash: this.core.tokens.hash(browserSecret),
      sealed: this.sealer.seal(JSON.stringify({ codeVerifier: secrets.codeVerifier, nonce: secrets.nonce }), stateHash),
      intent,
      userId,
      sessionId,
      returnTo: target,
      createdAt: now,
      expiresAt,
    };
    await this.core.store.transaction((tx) => tx.oidc.createFlow(flow));
    return {
      authorizationUrl,
      browserSecret,
      expiresAt,
      cookiePath: `${new URL(settings.callbackBase).pathname.replace(/\/+$/, '')}/oidc/${provider.id}/callback`,
      secure: settings.secure,
    };
  }

  private sameBrowser(flow: StoredOidcFlow, browserSecret: string | undefined): boolean {
    if (!browserSecret || !isRawToken(browserSecret)) return false;
    const given = Buffer.from(this.core.tokens.hash(browserSecret));
    const stored = Buffer.from(flow.browserHash);
    return given.length === stored.length && timingSafeEqual(given, stored);
  }

  private openSecrets(flow: StoredOidcFlow): { codeVerifier: string; nonce: string } | null {
    try {
      const opened = JSON.parse(this.sealer.open(flow.sealed, flow.stateHash)) as {
        codeVerifier?: unknown;
        nonce?: unknown;
      };
      return typeof opened.codeVerifier === 'string' && typeof opened.nonce === 'string'
        ? { codeVerifier: opened.codeVerifier, nonce: opened.nonce }
        : null;
    } catch {
      return null;
    }
  }

  /** A sign-in's answer: the handoff to store, or the fragment's error. */
  private async signInAnswer(
    provider: OidcProvider,
    answer: ProviderAnswer,
  ): Promise<HandoffOutcome | OidcFragmentError> {
    const address = providerAddress(answer);
    if (!domainAllowed(provider, address)) return this.refusedHandoff('domain_not_allowed', provider);
    let identity = await this.core.store.oidc.find(answer.issuer, answer.subject);
    if (!identity) {
      if (!address) {
        await this.auditLogin(null, 'email_required', provider);
        return 'email_required';
      }
      const first = await firstSignIn(this.core, provider, answer, address);
      if (first.outcome === 'link_required') return this.refusedHandoff('link_required', provider);
      identity = first.identity;
    }
    return {
      outcome: 'sign_in',
      userId: identity.userId,
      identityId: identity.id,
      ...this.methodsOf(provider, answer),
    };
  }

  /** A link flow's answer: the identity linked to the flow's account, if it is nobody else's. */
  private async linkAnswer(
    flow: StoredOidcFlow,
    provider: OidcProvider,
    answer: ProviderAnswer,
  ): Promise<HandoffOutcome | OidcFragmentError> {
    const userId = flow.userId;
    const user = userId ? await this.core.store.users.findById(userId) : null;
    // The session that asked must still be live: a logout or a password reset since cancels the link.
    const sessions = user ? await this.core.store.sessions.list(user.id) : [];
    const now = this.core.clock.now();
    if (!user || user.disabledAt !== null || !sessions.some((s) => s.id === flow.sessionId && s.expiresAt > now)) {
      await this.auditLogin(userId, 'session_ended', provider, 'oidc_linked');
      return 'provider_refused';
    }
    const address = providerAddress(answer);
    if (!domainAllowed(provider, address)) return this.refusedHandoff('domain_not_allowed', provider, user.id);
    const existing = await this.core.store.oidc.find(answer.issuer, answer.subject);
    if (existing) {
      if (existing.userId === user.id) return this.linkedHandoff(user.id, existing.id);
      await this.auditLogin(user.id, 'already_linked', provider, 'oidc_linked');
      return { ...NO_SESSION, outcome: 'already_linked', userId: user.id, identityId: null };
    }
    const identity = newIdentity(user.id, provider, answer, now);
    const audit = this.core.audit.event('oidc_linked', 'success', self(user.id), {
      provider: provider.id,
      identityId: identity.id,
    });
    const notice = this.notice('oidcLinked', now);
    const linked = await this.core.store.transaction(async (tx) => {
      const outcome = await tx.oidc.link(identity);
      if (outcome !== 'linked') return outcome;
      if (notice) await tx.outbox.add(notice, user);
      await tx.audit.add(audit);
      return outcome;
    });
    if (linked === 'gone') return 'provider_refused';
    if (linked === 'duplicate') {
      await this.auditLogin(user.id, 'already_linked', provider, 'oidc_linked');
      return { ...NO_SESSION, outcome: 'already_linked', userId: user.id, identityId: null };
    }
    this.core.logger.info(
      { event: 'oidc_linked', outcome: 'success', userId: user.id, provider: provider.id },
      'linked',
    );
    this.core.delivery?.nudge();
    return this.linkedHandoff(user.id, identity.id);
  }

  private linkedHandoff(userId: string, identityId: string): HandoffOutcome {
    return { ...NO_SESSION, outcome: 'linked', userId, identityId };
  }

  private async refusedHandoff(
    outcome: 'link_required' | 'domain_not_allowed',
    provider: OidcProvider,
    userId: string | null = null,
  ): Promise<HandoffOutcome> {
    if (outcome === 'domain_not_allowed') await this.auditLogin(userId, 'domain_not_allowed', provider);
    return { ...NO_SESSION, outcome, userId: null, identityId: null };
  }

  /**
   * What the session records (`fed`), and whether the provider's own second factor stands in for Gatehouse's: only
   * for `amr` or `acr` values the deployer listed as trusted for this provider.
   */
  private methodsOf(
    provider: OidcProvider,
    answer: ProviderAnswer,
  ): Pick<HandoffOutcome, 'methods' | 'skipSecondFactor'> {
    const trusted =
      answer.amr.some((value) => provider.trustedAmr.includes(value)) ||
      (answer.acr !== null && provider.trustedAcr.includes(answer.acr));
    const methods: AuthMethod[] = [...provedBy('oidc')];
    if (trusted) methods.push('mfa');
    return { methods, skipSecondFactor: trusted };
  }

  private async signIn(handoff: StoredOidcHandoff, client: SessionClient): Promise<SignInResult> {
    const user = handoff.userId ? await this.core.store.users.findById(handoff.userId) : null;
    const identity = user && handoff.identityId ? await this.identityOf(user.id, handoff.identityId) : null;
    // Unlinked, or its account deleted, in the minute since the callback.
    if (!user || !identity || this.core.hasExpired(user, this.core.clock.now())) throw invalidCode();
    if (!user.verified) {
      await this.auditLogin(user.id, 'unverified', null);
      throw new AccountError('unverified_user', 'Email address is not verified');
    }
    if (user.disabledAt !== null) {
      await this.auditLogin(user.id, 'disabled', null);
      throw new AccountError('account_disabled', 'This account is disabled');
    }
    if (!handoff.skipSecondFactor) {
      const challenge = await this.factors.challengeFor(user, client, 'fed');
      if (challenge) return challenge;
    }
    const token = await issueSession(this.core, {
      userId: user.id,
      methods: handoff.methods,
      credentialEpoch: user.credentialEpoch,
      client,
      audit: this.core.audit.event('login', 'success', self(user.id), { method: 'oidc', provider: identity.provider }),
    });
    if (token === null) throw invalidCode();
    await this.core.store.transaction((tx) => tx.oidc.touch(identity.id, this.core.clock.now()));
    this.core.logger.info(
      { event: 'login', outcome: 'success', userId: user.id, method: 'oidc', provider: identity.provider },
      'login succeeded',
    );
    return { kind: 'session', token };
  }

  private async identityOf(userId: string, identityId: string): Promise<StoredIdentity | null> {
    return (await this.core.store.oidc.list(userId)).find((identity) => identity.id === identityId) ?? null;
  }

  private async linkedView(handoff: StoredOidcHandoff): Promise<IdentityView> {
    const identity =
      handoff.userId && handoff.identityId && (await this.identityOf(handoff.userId, handoff.identityId));
    if (!identity) throw invalidCode();
    return identityView(identity, this.core.options.oidc);
  }

  private async viewsOf(userId: string): Promise<IdentityView[]> {
    return (await this.core.store.oidc.list(userId)).map((identity) => identityView(identity, this.core.options.oidc));
  }

  private async removeFrom(
    userId: string,
    identityId: string,
    keepWayIn: boolean,
    parties: AuditParties,
    type: 'oidc_unlinked' | 'admin.oidc_unlinked',
  ): Promise<void> {
    const now = this.core.clock.now();
    const audit = this.core.audit.event(type, 'success', parties, { identityId });
    const notice = this.notice('oidcUnlinked', now);
    const removal = await this.core.store.transaction(async (tx) => {
      const result = await tx.oidc.unlink(userId, identityId, now, keepWayIn ? this.core.wayInRule() : null);
      if (result.outcome !== 'removed') return result;
      if (notice) await tx.outbox.add(notice, result.user);
      await tx.audit.add(audit);
      return result;
    });
    if (removal.outcome === 'not_found') throw identityNotFound();
    if (removal.outcome === 'last_way_in') {
      this.core.logger.info({ event: type, outcome: 'last_sign_in_method', userId }, 'unlink refused');
      await this.core.audit.record(type, 'last_sign_in_method', parties);
      throw new AccountError(
        'last_sign_in_method',
        'This identity is the only way to sign in to the account: set a password or add a passkey first',
      );
    }
    this.core.logger.info({ event: type, outcome: 'success', userId, identityId }, 'identity unlinked');
    this.core.delivery?.nudge();
  }

  /** A callback whose flow is unknown, used, expired or another browser's: no return page is known to send it to. */
  private async refuseFlow(provider: OidcProvider, why: string, userId: string | null = null): Promise<never> {
    await this.auditLogin(userId, why, provider);
    throw flowInvalid();
  }

  private async fragmentError(
    flow: StoredOidcFlow,
    provider: OidcProvider,
    error: OidcFragmentError,
    reason?: string,
  ): Promise<{ redirectTo: string }> {
    await this.auditLogin(flow.userId, reason ? `${error}:${reason}` : error, provider);
    return { redirectTo: `${flow.returnTo}#error=${error}` };
  }

  private async auditLogin(
    userId: string | null,
    why: string,
    provider: OidcProvider | null,
    type: 'login' | 'oidc_linked' = 'login',
  ): Promise<void> {
    const details = { method: 'oidc', ...(provider ? { provider: provider.id } : {}) };
    this.core.logger.info({ event: type, outcome: why, userId, ...details }, 'provider sign-in refused');
    await this.core.audit.record(type, why, anonymous(userId), details);
  }

  /** A notice, queued only for a sender that carries its kind. */
  private notice(kind: OutboxKind, now: Date) {
    return canSend(this.core.sender, kind) ? this.core.messages.notice(kind, now) : undefined;
  }
}

/** A handoff as the callback decides it, before its code and times are added. */
type HandoffOutcome = Omit<StoredOidcHandoff, 'codeHash' | 'ip' | 'userAgent' | 'createdAt' | 'expiresAt'>;

const NO_SESSION = { methods: [] as AuthMethod[], skipSecondFactor: false };
