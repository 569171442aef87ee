import { Token } from 'typedi';
import type { EmailSender } from '../services/email-sender';
import type { LegacyEmailSender } from '../services/legacy-email-sender';
import type { RateLimitOptions } from '../limits/rate-limit-options';
import type { AccountOptions } from '../services/account-options';
import type { Clock } from '../services/clock';
import type { Logger } from '../services/logger';
import type { UserSerializer } from '../services/types';
import type { UserStore } from '../services/user-store';

/** The seams a host swaps with `Container.set(TOKEN, value)`. Only USER_STORE and ACCOUNT_OPTIONS are required. */
export const USER_STORE = new Token<UserStore>('gatehouse.UserStore');
/**
 * Defaults to the console sender, which prints messages (with their links) to stdout. An old per-kind sender is still
 * accepted (see `fromLegacySender`).
 */
export const EMAIL_SENDER = new Token<EmailSender | LegacyEmailSender>('gatehouse.EmailSender');
export const ACCOUNT_OPTIONS = new Token<AccountOptions>('gatehouse.AccountOptions');
/** Changes what `GET /me` returns, and only that. */
export const USER_SERIALIZER = new Token<UserSerializer>('gatehouse.UserSerializer');
export const CLOCK = new Token<Clock>('gatehouse.Clock');
export const LOGGER = new Token<Logger>('gatehouse.Logger');
/**
 * Rate limits (per IP, per account, per email address): on by default, in this process's memory. Set it to tune
 * them, to keep them in Redis (shared by every instance), or to turn them off.
 */
export const RATE_LIMITS = new Token<RateLimitOptions>('gatehouse.RateLimits');
/**
 * The reverse proxies whose `X-Forwarded-For` is believed, in proxy-addr syntax: IPs, CIDRs, or `loopback`,
 * `linklocal`, `uniquelocal`. Unset: nobody's, so the client is the socket's peer (see `clientIp`).
 */
export const TRUSTED_PROXIES = new Token<string | string[]>('gatehouse.TrustedProxies');
