import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../browser/chromium';

/**
 * Real WebAuthn ceremonies for tests: Chromium's virtual authenticator (CDP `WebAuthn` domain) signs, the page runs
 * `@simplewebauthn/browser` exactly as a hosted page would, and the test gets the JSON a browser would POST. Nothing
 * is mocked: the origin in clientDataJSON is the page's, the RP ID check is the browser's, and the counter is the
 * authenticator's.
 *
 * Against Gatehouse (configured with RP ID `localhost` and origin `http://localhost:<port>`):
 *
 *     const webauthn = await WebAuthnHarness.start({ origin: `http://localhost:${port}` });
 *     const options = (await http.post('/auth/passkeys/registration-options').set(bearer(token))).body;
 *     const response = await webauthn.create(options);   // then POST /auth/passkeys { name, response }
 *     const assertion = await webauthn.get(loginOptions); // then POST /auth/passkeys/login { response }
 *
 * `WebAuthnHarness.start()` without an origin runs on a blank page of another origin (same RP ID): its responses are
 * the "made on another origin" ones.
 */

/** The credential shape of CDP `WebAuthn.Credential`; ids, keys and handles are standard base64 (not base64url). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** PKCS#8, base64. */
  privateKey: string;
  userHandle?: string;
  signCount: number;
  largeBlob?: string;
  backupEligibility?: boolean;
  backupState?: boolean;
  userName?: string;
  userDisplayName?: string;
}

/** `WebAuthn.VirtualAuthenticatorOptions`; the defaults are a platform passkey provider that verifies the user. */
export interface AuthenticatorOptions {
  protocol?: 'ctap2' | 'u2f';
  ctap2Version?: 'ctap2_0' | 'ctap2_1';
  transport?: 'usb' | 'nfc' | 'ble' | 'cable' | 'internal';
  hasResidentKey?: boolean;
  hasUserVerification?: boolean;
  isUserVerified?: boolean;
  automaticPresenceSimulation?: boolean;
  /** Backup flags of the credentials it makes: a synced passkey has both set. */
  defaultBackupEligibility?: boolean;
  defaultBackupState?: boolean;
}

export const PLATFORM_AUTHENTICATOR: Required<
  Omit<AuthenticatorOptions, 'ctap2Version' | 'defaultBackupEligibility' | 'defaultBackupState'>
> = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
};

// The package's exports map hides dist/; its entry point is script/index.js, two levels below the package root.
const BUNDLE_PATH = join(dirname(dirname(require.resolve('@simplewebauthn/browser'))), 'dist/bundle/index.umd.min.js');
let bundle: string | undefined;
/** Read once, on first use: the same file the hosted pages serve. */
function browserBundle(): string {
  return (bundle ??= readFileSync(BUNDLE_PATH, 'utf8'));
}

/** base64 (CDP) to base64url (WebAuthn JSON), to compare a virtual credential with a response's `id`. */
export const base64url = (base64: string): string => Buffer.from(base64, 'base64').toString('base64url');
/** base64url to base64, to hand a credential id or user handle from JSON back to CDP. */
export const base64 = (base64urlText: string): string => Buffer.from(base64urlText, 'base64url').toString('base64');

/**
 * One virtual authenticator on one page (CDP's WebAuthn domain is per target; it survives navigations of that page).
 * Use it directly to give a hosted page under test an authenticator; `WebAuthnHarness` wraps it for API tests.
 */
export class VirtualAuthenticator {
  private constructor(
    private readonly cdp: CDPSession,
    private readonly options: AuthenticatorOptions,
    private authenticatorId: string | undefined,
  ) {}

  static async attach(page: Page, options: AuthenticatorOptions = {}): Promise<VirtualAuthenticator> {
    const cdp = await page.context().newCDPSession(page);
    // enableUI false: no dialogs to click through; presence is simulated.
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const authenticator = new VirtualAuthenticator(cdp, options, undefined);
    await authenticator.add();
    return authenticator;
  }

  get id(): string {
    if (!this.authenticatorId) throw new Error('the virtual authenticator was removed; call newAuthenticator()');
    return this.authenticatorId;
  }

  private async add(): Promise<void> {
    const { authenticatorId } = await this.cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { ...PLATFORM_AUTHENTICATOR, ...this.options },
    });
    this.authenticatorId = authenticatorId;
  }

  /**
   * Whether user verification succeeds. False makes a ceremony that asks for verification ('required' or
   * 'preferred') fail with NotAllowedError, as when the person fails it. For a presence-only assertion (UV flag
   * clear) pass options with `userVerification: 'discouraged'`, or use an authenticator made with
   * `hasUserVerification: false`.
   */
  async setUserVerified(isUserVerified: boolean): Promise<void> {
    await this.cdp.send('WebAuthn.setUserVerified', { authenticatorId: this.id, isUserVerified });
  }

  /** The credentials it holds, with their current sign counts. */
  async credentials(): Promise<VirtualCredential[]> {
    const { credentials } = await this.cdp.send('WebAuthn.getCredentials', { authenticatorId: this.id });
    return credentials as VirtualCredential[];
  }

  /**
   * Puts a credential in (or back): with a saved credential whose `signCount` is lower than the authenticator's
   * current one, the next assertion looks like one from a clone.
   */
  async addCredential(credential: VirtualCredential): Promise<void> {
    await this.cdp.send('WebAuthn.addCredential', { authenticatorId: this.id, credential });
  }

  async removeCredential(credentialId: string): Promise<void> {
    await this.cdp.send('WebAuthn.removeCredential', { authenticatorId: this.id, credentialId });
  }

  async clearCredentials(): Promise<void> {
    await this.cdp.send('WebAuthn.clearCredentials', { authenticatorId: this.id });
  }

  /** Takes the authenticator (and its credentials) away: a ceremony then finds none and times out or fails. */
  async remove(): Promise<void> {
    if (!this.authenticatorId) return;
    await this.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: this.authenticatorId });
    this.authenticatorId = undefined;
  }

  /** A fresh authenticator with no credentials, replacing this one (another device of the same person). */
  async renew(options: AuthenticatorOptions = {}): Promise<void> {
    await this.remove();
    Object.assign(this.options, options);
    await this.add();
  }

  async detach(): Promise<void> {
    await this.remove().catch(() => undefined);
    await this.cdp.detach().catch(() => undefined);
  }
}

/** Loads `SimpleWebAuthnBrowser` into the page unless it is there. Runtime.evaluate is not subject to the CSP. */
export async function injectBrowserLibrary(page: Page): Promise<void> {
  const present = await page.evaluate('typeof SimpleWebAuthnBrowser !== "undefined"');
  if (!present) await page.evaluate(browserBundle());
}

/** A page that is only a blank document, so that the harness has a secure context (localhost) of its own origin. */
async function startBlankServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end('<!doctype html><html><head><title>WebAuthn test page</title></head><body></body></html>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  // "localhost", not 127.0.0.1: WebAuthn refuses IP addresses as RP IDs, and localhost is a secure context.
  return { server, url: `http://localhost:${port}/` };
}

/** The path the harness opens on a given origin: a document of that origin that is no page of Gatehouse. */
export const HARNESS_PATH = '/webauthn-test-harness';

export interface HarnessOptions {
  /**
   * The origin to run ceremonies on, e.g. Gatehouse's `http://localhost:<port>` (its configured origin): the harness
   * opens a path there that is no page (`HARNESS_PATH`, answered 404), so no page script runs beside it. Prefer this
   * to `url` with Gatehouse's sign-in page, whose passkey autofill the virtual authenticator answers at once: it
   * would sign in in the background, spending challenges and moving the counter.
   */
  origin?: string;
  /**
   * The page to run ceremonies on; its origin is the one the authenticator signs into clientDataJSON, so use the
   * Gatehouse under test's origin (e.g. `${server.url}/auth/login`). Without it, a blank page on its own
   * `http://localhost:<random port>` — that is, another origin with the same RP ID `localhost`, which a correctly
   * configured relying party must refuse.
   */
  url?: string;
  /** A browser to open the page in (closed by its owner); without it the harness launches and closes its own. */
  browser?: BrowserContext;
  authenticator?: AuthenticatorOptions;
}

/**
 * WebAuthn ceremonies as Node calls, for API tests: `create(options)` and `get(options)` take the options JSON the
 * server made and answer the response JSON to POST back. Make the options ill-formed, or tamper with them (say,
 * `userVerification: 'discouraged'`), before passing them, to see what a hostile client could send.
 */
export class WebAuthnHarness {
  private constructor(
    readonly page: Page,
    readonly authenticator: VirtualAuthenticator,
    private readonly cleanup: () => Promise<void>,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<WebAuthnHarness> {
    const closers: (() => Promise<void>)[] = [];
    const cleanup = async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    };
    try {
      let url = options.url ?? (options.origin && new URL(HARNESS_PATH, options.origin).href);
      if (!url) {
        const blank = await startBlankServer();
        closers.push(
          () =>
            new Promise<void>((resolve) => {
              blank.server.close(() => resolve());
              // The browser keeps its connection alive (and may outlive the harness): close() alone would wait.
              blank.server.closeAllConnections();
            }),
        );
        url = blank.url;
      }
      let browser = options.browser;
      if (!browser) {
        const launched = await launchChromium();
        closers.push(launched.close);
        browser = launched.browser;
      }
      const page = await browser.newPage();
      closers.push(() => page.close());
      await page.goto(url);
      const authenticator = await VirtualAuthenticator.attach(page, options.authenticator);
      closers.push(() => authenticator.detach());
      await injectBrowserLibrary(page);
      return new WebAuthnHarness(page, authenticator, cleanup);
    } catch (error) {
      await cleanup();
      throw error;
    }
  }

  /** The origin the authenticator puts in clientDataJSON. */
  get origin(): string {
    return new URL(this.page.url()).origin;
  }

  /** Moves the page (and the authenticator with it) to another URL, e.g. another origin. */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await injectBrowserLibrary(this.page);
  }

  /** A registration ceremony (navigator.credentials.create through startRegistration). */
  async create(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON> {
    await injectBrowserLibrary(this.page);
    return this.page.evaluate(
      (options) =>
        (
          globalThis as unknown as {
            SimpleWebAuthnBrowser: { startRegistration(o: object): Promise<RegistrationResponseJSON> };
          }
        ).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options }),
      optionsJSON,
    );
  }

  /** An authentication ceremony (navigator.credentials.get through startAuthentication). */
  async get(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON> {
    await injectBrowserLibrary(this.page);
    return this.page.evaluate(
      (options) =>
        (
          globalThis as unknown as {
            SimpleWebAuthnBrowser: { startAuthentication(o: object): Promise<AuthenticationResponseJSON> };
          }
        ).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }),
      optionsJSON,
    );
  }

  setUserVerified(isUserVerified: boolean): Promise<void> {
    return this.authenticator.setUserVerified(isUserVerified);
  }

  credentials(): Promise<VirtualCredential[]> {
    return this.authenticator.credentials();
  }

  addCredential(credential: VirtualCredential): Promise<void> {
    return this.authenticator.addCredential(credential);
  }

  removeAuthenticator(): Promise<void> {
    return this.authenticator.remove();
  }

  /** Replaces the authenticator with a fresh one holding no credentials. */
  newAuthenticator(options: AuthenticatorOptions = {}): Promise<void> {
    return this.authenticator.renew(options);
  }

  /** Closes the page, and the browser and blank server if the harness started them. */
  close(): Promise<void> {
    return this.cleanup();
  }
}
