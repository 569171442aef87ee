/**
 * Where the links in account emails point. Either `publicUrl` (with `prefix` and the paths) builds the links
 * against the Gatehouse routes, or `verifyUrl` / `resetUrl` / `emailChangeUrl` point some or all of them at the
 * host's own front end.
 */
export interface EmailLinksOptions {
  /**
   * Absolute http(s) URL at which clients reach this server, e.g. `https://accounts.example.com`. May carry a path;
   * a trailing slash is dropped. Required unless both `verifyUrl` and `resetUrl` are given. Without it, email-change
   * links need `emailChangeUrl`; with neither, the senders do not offer email change (`email_change_unavailable`).
   */
  publicUrl?: string;
  /** The route prefix the account routes are mounted under: `''` or a path such as `/auth`. Default `''`. */
  prefix?: string;
  /** Path of the verification page after the prefix. Default `/verify-email`. */
  verifyPath?: string;
  /** Path of the password-reset page after the prefix. Default `/password-reset`. */
  resetPath?: string;
  /** Path of the page confirming a new email address, after the prefix. Default `/email-change/confirm`. */
  emailChangePath?: string;
  /**
   * Full base of verification links, used instead of publicUrl + prefix + verifyPath when the host's front end
   * handles them, e.g. `https://app.example.com/verify`. `token=` is appended with `?`, or with `&` when the base
   * already has a query, so a hash route such as `https://app.example.com/#/verify` receives `?token=` inside the
   * fragment, where a hash router reads it.
   */
  verifyUrl?: string;
  /** Full base of password-reset links, as `verifyUrl`. */
  resetUrl?: string;
  /** Full base of email-change links, as `verifyUrl`. */
  emailChangeUrl?: string;
}

export const DEFAULT_VERIFY_PATH = '/verify-email';
export const DEFAULT_RESET_PATH = '/password-reset';
export const DEFAULT_EMAIL_CHANGE_PATH = '/email-change/confirm';
/** The hosted invitation page, below the prefix (`publicUrl` deployments only). */
export const DEFAULT_INVITATION_PATH = '/invitation';

/**
 * Builds the links of account emails from configuration only: never from a request's Host or X-Forwarded-Host,
 * which an attacker controls (host-header reset poisoning). Options are checked once, here, so a bad value fails the
 * boot instead of the first email.
 *
 * @example
 * const links = new EmailLinks({ publicUrl: 'https://example.com', prefix: '/auth' });
 * links.passwordReset('abc'); // 'https://example.com/auth/password-reset?token=abc'
 */
export class EmailLinks {
  private readonly verifyBase: string;
  private readonly resetBase: string;
  private readonly emailChangeBase: string | null;
  private readonly invitationBase: string | null;

  constructor(options: EmailLinksOptions) {
    if (!options || typeof options !== 'object') {
      throw new TypeError('Gatehouse: EmailLinks needs an options object with publicUrl');
    }
    const verifyUrl = options.verifyUrl === undefined ? undefined : checkLinkBase('verifyUrl', options.verifyUrl);
    const resetUrl = options.resetUrl === undefined ? undefined : checkLinkBase('resetUrl', options.resetUrl);
    const emailChangeUrl =
      options.emailChangeUrl === undefined ? undefined : checkLinkBase('emailChangeUrl', options.emailChangeUrl);
    if (verifyUrl !== undefined && resetUrl !== undefined && options.publicUrl === undefined) {
      this.verifyBase = verifyUrl;
      this.resetBase = resetUrl;
      // A front end configured before email change existed has no page for it: the feature is off, the boot is not.
      this.emailChangeBase = emailChangeUrl ?? null;
      this.invitationBase = null;
      return;
    }
    const root = checkPublicUrl(options.publicUrl) + checkPrefix(options.prefix ?? '');
    this.verifyBase = verifyUrl ?? root + checkPath('verifyPath', options.verifyPath ?? DEFAULT_VERIFY_PATH);
    this.resetBase = resetUrl ?? root + checkPath('resetPath', options.resetPath ?? DEFAULT_RESET_PATH);
    this.emailChangeBase =
      emailChangeUrl ?? root + checkPath('emailChangePath', options.emailChangePath ?? DEFAULT_EMAIL_CHANGE_PATH);
    this.invitationBase = root + DEFAULT_INVITATION_PATH;
  }

  /** The link of the verification email: `<verify base>?token=<token>`. */
  verification(token: string): string {
    return withToken(this.verifyBase, token);
  }

  /** The link of the password-reset email: `<reset base>?token=<token>`. */
  passwordReset(token: string): string {
    return withToken(this.resetBase, token);
  }

  /** Whether email-change links can be built: `publicUrl` or `emailChangeUrl` was given. */
  get hasEmailChange(): boolean {
    return this.emailChangeBase !== null;
  }

  /** The link of the email-change message, sent to the new address: `<email-change base>?token=<token>`. */
  emailChange(token: string): string {
    if (this.emailChangeBase === null) {
      throw new TypeError('Gatehouse: email-change links need publicUrl or emailChangeUrl in EmailLinks');
    }
    return withToken(this.emailChangeBase, token);
  }

  /** The link of an organization invitation: `<public URL><prefix>/invitation?token=<token>`. */
  invitation(token: string): string {
    if (this.invitationBase === null) {
      throw new TypeError('Gatehouse: invitation links need publicUrl in EmailLinks');
    }
    return withToken(this.invitationBase, token);
  }
}

function withToken(base: string, token: string): string {
  if (typeof token !== 'string' || token === '') {
    throw new TypeError('Gatehouse: an email link needs a non-empty token');
  }
  return base + (base.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token);
}

// new URL() quietly trims surrounding whitespace and reads `\` as `/`; refusing them keeps what was configured and
// what is linked the same thing.
const UNSAFE_URL_CHARACTERS = /[\s\p{Cc}\\]/u;

function parseHttpUrl(name: string, value: unknown): URL {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `Gatehouse: ${name} is required and must be an absolute http(s) URL such as https://example.com`,
    );
  }
  if (UNSAFE_URL_CHARACTERS.test(value)) {
    throw new TypeError(`Gatehouse: ${name} must not contain whitespace, control characters or backslashes`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`Gatehouse: ${name} must be an absolute http(s) URL such as https://example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`Gatehouse: ${name} must use http or https, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username || url.password) {
    throw new TypeError(`Gatehouse: ${name} must not contain a user name or password`);
  }
  return url;
}

/** Returns the canonical origin + path, without a trailing slash, so paths can be appended. */
function checkPublicUrl(value: unknown): string {
  const url = parseHttpUrl('publicUrl', value);
  if (url.search || url.hash || (value as string).includes('?') || (value as string).includes('#')) {
    throw new TypeError('Gatehouse: publicUrl must not contain a query (?) or fragment (#); paths are appended to it');
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function checkLinkBase(name: string, value: unknown): string {
  parseHttpUrl(name, value);
  return value as string;
}

const PATH_PATTERN = /^(\/[^/?#\s\p{Cc}\\]+)+$/u;

function checkPrefix(prefix: unknown): string {
  if (prefix === '') return '';
  if (typeof prefix !== 'string' || !PATH_PATTERN.test(prefix)) {
    throw new TypeError(
      "Gatehouse: prefix must be '' or a path starting with '/' and not ending with '/' (e.g. '/auth'), " +
        'without ?, #, whitespace or backslashes',
    );
  }
  return prefix;
}

function checkPath(name: string, path: unknown): string {
  if (typeof path !== 'string' || !PATH_PATTERN.test(path)) {
    throw new TypeError(
      `Gatehouse: ${name} must be a path starting with '/' and not ending with '/' (e.g. '/verify-email'), ` +
        'without ?, #, whitespace or backslashes',
    );
  }
  return path;
}
