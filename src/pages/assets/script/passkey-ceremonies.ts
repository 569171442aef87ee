import type { Problem } from './api-calls';
import type { PublicKeyCredentialStatics, WebAuthnLibrary } from './browser';

declare const SimpleWebAuthnBrowser: WebAuthnLibrary;
declare const PublicKeyCredential: PublicKeyCredentialStatics;

/** What a ceremony gave: the response JSON to send, a problem to show, or nothing (another ceremony took over). */
export type CeremonyOutcome = { response: object } | { problem: Problem } | { cancelled: true };

/** The account's passkeys as the browser should know them: the relying party, the user handle, the credential ids. */
export interface AcceptedCredentials {
  rpId: string;
  userId: string;
  ids: string[];
}

export interface PasskeyCeremonies {
  /** Whether this browser can run a ceremony: the library loaded (passkeys configured) and WebAuthn is there. */
  supported: boolean;
  /** Whether the browser can tell its passkey manager that a passkey is gone (`PublicKeyCredential.signal*`). */
  canSignal: boolean;
  create: (optionsJSON: unknown) => Promise<CeremonyOutcome>;
  /** An assertion; `autofill` waits for the person to pick a passkey in a field's autofill (conditional mediation). */
  get: (optionsJSON: unknown, autofill?: boolean) => Promise<CeremonyOutcome>;
  autofillAvailable: () => Promise<boolean>;
  /** Reads the creation options of POST /passkeys/registration-options as the credentials the account accepts. */
  acceptedOf: (creationOptions: unknown) => AcceptedCredentials | null;
  /** Tells the browser which passkeys are gone (those of `before` not in `after`) and which remain; never fails. */
  signalRemoved: (before: AcceptedCredentials | null, after: AcceptedCredentials | null) => Promise<void>;
}

/**
 * The WebAuthn ceremonies of the pages, through `@simplewebauthn/browser` (served by Gatehouse as
 * /assets/webauthn.js, loaded before this script on the pages that offer passkeys), and their failures in words.
 */
export function passkeyCeremonies(): PasskeyCeremonies {
  // Declared globals may be absent: a page without passkeys does not load the library, an old browser has no
  // WebAuthn. `typeof` reads them without a ReferenceError.
  const library = typeof SimpleWebAuthnBrowser === 'undefined' ? null : SimpleWebAuthnBrowser;
  const statics = typeof PublicKeyCredential === 'undefined' ? null : PublicKeyCredential;
  const supported = library !== null && library.browserSupportsWebAuthn();
  const canSignal =
    supported &&
    (typeof statics?.signalUnknownCredential === 'function' ||
      typeof statics?.signalAllAcceptedCredentials === 'function');

  /** The browser's refusal in words; an aborted ceremony (the page started another one) is no problem. */
  function outcomeOf(error: unknown): CeremonyOutcome {
    const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
    if (name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED') return { cancelled: true };
    const problem = (problemCode: string, text: string): CeremonyOutcome => ({
      problem: { code: problemCode, message: text, fields: {} },
    });
    if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') {
      return problem('passkey_already_registered', 'This device already holds a passkey for your account.');
    }
    if (name === 'NotAllowedError') {
      return problem(
        'passkey_cancelled',
        'No passkey was used: the request was cancelled, timed out, or found no passkey for this site.',
      );
    }
    if (name === 'SecurityError') {
      return problem('passkey_security', 'This page’s address does not match the server’s passkey settings.');
    }
    return problem(
      'passkey_failed',
      `The passkey could not be used${typeof message === 'string' && message ? `: ${message}` : '.'}`,
    );
  }

  const unsupported: CeremonyOutcome = {
    problem: { code: 'passkey_unsupported', message: 'This browser cannot use passkeys.', fields: {} },
  };

  async function create(optionsJSON: unknown): Promise<CeremonyOutcome> {
    if (!library || !supported) return unsupported;
    try {
      return { response: await library.startRegistration({ optionsJSON }) };
    } catch (error) {
      return outcomeOf(error);
    }
  }

  async function get(optionsJSON: unknown, autofill = false): Promise<CeremonyOutcome> {
    if (!library || !supported) return unsupported;
    try {
      // Starting a ceremony aborts the one under way (the library's abort service): the button's ceremony ends
      // the waiting autofill, whose promise then gives `cancelled`.
      return { response: await library.startAuthentication({ optionsJSON, useBrowserAutofill: autofill }) };
    } catch (error) {
      return outcomeOf(error);
    }
  }

  async function autofillAvailable(): Promise<boolean> {
    if (!library || !supported) return false;
    return library.browserSupportsWebAuthnAutofill().catch(() => false);
  }

  function acceptedOf(creationOptions: unknown): AcceptedCredentials | null {
    const options = creationOptions as {
      rp?: { id?: unknown };
      user?: { id?: unknown };
      excludeCredentials?: { id?: unknown }[];
    } | null;
    const rpId = options?.rp?.id;
    const userId = options?.user?.id;
    if (typeof rpId !== 'string' || typeof userId !== 'string') return null;
    const ids = (Array.isArray(options?.excludeCredentials) ? options.excludeCredentials : [])
      .map((credential) => credential?.id)
      .filter((id): id is string => typeof id === 'string');
    return { rpId, userId, ids };
  }

  async function signalRemoved(before: AcceptedCredentials | null, after: AcceptedCredentials | null): Promise<void> {
    if (!canSignal || !statics) return;
    // A signal is advice to the passkey manager; the removal is done whatever it says.
    try {
      if (before && after && typeof statics.signalUnknownCredential === 'function') {
        for (const credentialId of before.ids.filter((id) => !after.ids.includes(id))) {
          await statics.signalUnknownCredential({ rpId: after.rpId, credentialId });
        }
      }
      if (after && typeof statics.signalAllAcceptedCredentials === 'function') {
        await statics.signalAllAcceptedCredentials({
          rpId: after.rpId,
          userId: after.userId,
          allAcceptedCredentialIds: after.ids,
        });
      }
    } catch {
      // Nothing to tell the person: the passkey is removed from the account either way.
    }
  }

  return { supported, canSignal, create, get, autofillAvailable, acceptedOf, signalRemoved };
}
