import type { ApiCalls, Problem } from './api-calls';
import type { PageElement } from './browser';
import type { FormHelpers } from './form-helpers';
import type { PageDisplay } from './page-display';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { TabSession } from './tab-session';

/** What every page's script is handed (run-pages.ts puts it together once per page load). */
export interface SharedKit extends PageDisplay, TabSession, ApiCalls, FormHelpers {
  /** The prefix of the account API (`data-api`): every request and every link starts with it. */
  api: string;
  /** The emailed link's token, read once and taken out of the address bar at once; '' when there is none. */
  linkToken: string;
  /** The WebAuthn ceremonies (passkey-ceremonies.ts); `supported` is false where the page does not offer passkeys. */
  passkeys: PasskeyCeremonies;
}

export interface Reauthentication {
  /** Opens the prompt; `retry` (the request refused for want of a recent proof) is sent again once it is given. */
  ask: (retry: () => Promise<void>) => void;
  /** With two-factor sign-in on, confirming it is you takes a code after the password: the field shows, required. */
  askCode: (on: boolean) => void;
  /** Asks for the code from the start when two-factor sign-in is on (GET /second-factor); as it was if unknown. */
  loadSecondFactor: () => Promise<void>;
  /** Offers a passkey instead of the password, for an account that has one (and a browser that can use it). */
  offerPasskey: (on: boolean) => void;
}

/** A page's handling of a refused request: the session ended, or a problem to show (beside the form's inputs). */
export type AfterFailure = (problem: Problem, form?: PageElement) => void;

export interface PageKit extends SharedKit {
  /** The "confirm it is you" prompt of the pages that have it (reauthentication-prompt.ts). */
  reauthentication: (token: string, afterFailure: AfterFailure, cancelFocus: () => string) => Reauthentication;
}
