/*
 * The few browser APIs the pages' script touches, as types: the project compiles without the DOM library. A module
 * of the script declares the globals it uses with these (`declare const document: BrowserDocument`), so the
 * declarations stay in the modules that run in the browser and never reach the server's code.
 */

export interface PageElement {
  hidden: boolean;
  textContent: string | null;
  readonly name: string;
  readonly type: string;
  value: string;
  /** Of a checkbox. */
  checked: boolean;
  readonly dataset: Record<string, string | undefined>;
  focus(): void;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  addEventListener(type: string, listener: (event: { preventDefault(): void }) => void): void;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  append(...children: (PageElement | string)[]): void;
  replaceChildren(...children: (PageElement | string)[]): void;
  reset(): void;
  /** Of a text input: selects its whole value. */
  select(): void;
}

export interface BrowserDocument {
  readonly body: PageElement;
  getElementById(id: string): PageElement | null;
  createElement(tag: string): PageElement;
  /** Only for `copy`, where the asynchronous clipboard is missing (a page not served from a secure context). */
  execCommand(command: 'copy'): boolean;
}

/** `navigator`, for its clipboard alone: missing outside a secure context (an http:// page not on localhost). */
export interface BrowserNavigator {
  readonly clipboard?: { writeText(text: string): Promise<void> };
}

/** `window`, for the events of the page as a whole (`pagehide`). */
export interface BrowserWindow {
  addEventListener(type: string, listener: () => void): void;
}

export interface BrowserLocation {
  readonly search: string;
  /** The fragment, with its `#`, or ''. */
  readonly hash: string;
  readonly pathname: string;
  assign(url: string): void;
}

export interface BrowserHistory {
  replaceState(state: unknown, unused: string, url: string): void;
}

export interface BrowserStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Base64 of a string of Latin-1 characters (the SVG of the QR code is ASCII). */
export type Btoa = (data: string) => string;

/**
 * `SimpleWebAuthnBrowser`, the global of `@simplewebauthn/browser`'s bundle (assets/webauthn.js), as the pages use
 * it: the options and responses are the JSON the API sends and takes.
 */
export interface WebAuthnLibrary {
  startRegistration(options: { optionsJSON: unknown }): Promise<object>;
  startAuthentication(options: { optionsJSON: unknown; useBrowserAutofill?: boolean }): Promise<object>;
  browserSupportsWebAuthn(): boolean;
  /** Whether the browser offers passkeys in a field's autofill (conditional mediation). */
  browserSupportsWebAuthnAutofill(): Promise<boolean>;
}

/** The static methods of `PublicKeyCredential` the pages feature-detect: the signals are recent (WebAuthn Level 3). */
export interface PublicKeyCredentialStatics {
  signalUnknownCredential?: (options: { rpId: string; credentialId: string }) => Promise<void>;
  signalAllAcceptedCredentials?: (options: {
    rpId: string;
    userId: string;
    allAcceptedCredentialIds: string[];
  }) => Promise<void>;
}
