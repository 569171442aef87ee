import type { ApiResult, Problem } from './api-calls';
import type { BrowserDocument, BrowserLocation, PageElement } from './browser';
import type { Values } from './form-helpers';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;
declare const location: BrowserLocation;

/** What a page's first step (the password, or a provider's answer) lends the second. */
export interface FirstStep {
  /** Hides the first step: the second takes its place. */
  hide: () => void;
  /** Back to the first step once the second is reset: a challenge that died (saying why), or the person's wish. */
  show: (problem?: Problem) => void;
  /** What a dead challenge (expired, too many answers) says: how to start over from this page's first step. */
  challengeEnded: string;
}

/** The second step as the sign-in pages and their passkey parts drive it. */
export interface SignInSteps {
  /** Handles a first step's answer (signed in, or the second step shown); false for a refusal. */
  afterFirstStep: (result: ApiResult) => boolean;
  signedIn: (token: string) => void;
  /** Back to the first step, after a challenge that died, saying why. */
  toFirstStep: (problem?: Problem) => void;
  /** The second step's challenge token, '' before the first step. */
  challenge: () => string;
  /** What a dead challenge says, for the passkey answer's refusals too. */
  challengeEnded: string;
}

/**
 * The second step of a sign-in (`secondFactorStep` in the markup), one for every page that can be answered with a
 * challenge: the sign-in page after the password, the provider's return page after POST /oidc/exchange. A code from
 * the app or a recovery code to POST /login/second-factor (a passkey: passkey-login.ts), and the session kept for
 * this tab as after any sign-in, then the account page.
 */
export function secondFactorStep(kit: PageKit, first: FirstStep): SignInSteps {
  const { api, byId, callApi, clearMessages, hide, keptInvitation, onClick, onSubmit, problemOf, saveSession } = kit;
  const { show, showProblem } = kit;
  /**
   * The challenge the first step gave an account with two-factor sign-in: kept in this page's memory only, so it
   * dies with the page, and sent with the code that answers it.
   */
  let challenge = '';

  function toFirstStep(problem?: Problem): void {
    challenge = '';
    byId('second-factor-form').reset();
    byId('recovery-form').reset();
    hide('second-factor');
    first.show(problem);
  }

  /** Which way the second step is answered: the app's code, or a recovery code. */
  function answerWith(recovery: boolean): void {
    byId('second-factor-form').hidden = recovery;
    byId('use-recovery-button').hidden = recovery;
    byId('recovery-form').hidden = !recovery;
    byId('use-totp-button').hidden = !recovery;
    clearMessages();
    byId(recovery ? 'recovery-form-recovery_code' : 'second-factor-form-code').focus();
  }

  /**
   * Signed in: the session is kept for this tab, and the account page opens; or the invitation page, when this tab
   * came to sign in from an invitation (a newcomer who has just signed up and confirmed the address).
   */
  function signedIn(token: string): void {
    saveSession(token);
    location.assign(`${api}${keptInvitation() ? '/invitation' : '/account'}`);
  }

  /**
   * The answer of a first step (POST /login, POST /passkeys/login, POST /oidc/exchange, which answer alike): signed
   * in, or the second step shown (with "Use a passkey" when the challenge lists `passkey`). False for a refusal, left
   * to the caller to word.
   */
  function afterFirstStep(result: ApiResult): boolean {
    const answer = (result.body ?? {}) as {
      access_token?: unknown;
      second_factor_required?: unknown;
      challenge_token?: unknown;
      methods?: unknown;
    };
    if (result.status === 200 && typeof answer.access_token === 'string') {
      signedIn(answer.access_token);
      return true;
    }
    if (result.status === 200 && answer.second_factor_required === true && typeof answer.challenge_token === 'string') {
      challenge = answer.challenge_token;
      first.hide();
      const passkeyButton = document.getElementById('use-passkey-button');
      if (passkeyButton) {
        passkeyButton.hidden = !(
          kit.passkeys.supported &&
          Array.isArray(answer.methods) &&
          answer.methods.includes('passkey')
        );
      }
      show('second-factor');
      answerWith(false);
      // An account whose only second factor is a passkey has no app code to type.
      if (passkeyButton && !passkeyButton.hidden && Array.isArray(answer.methods) && !answer.methods.includes('totp')) {
        byId('second-factor-form').hidden = true;
        byId('use-recovery-button').hidden = !answer.methods.includes('recovery_code');
        passkeyButton.focus();
      }
      return true;
    }
    return false;
  }

  async function answerChallenge(proof: Values, form: PageElement, field: string): Promise<void> {
    const result = await callApi('POST', '/login/second-factor', { challenge_token: challenge, ...proof });
    const token = (result.body as { access_token?: unknown } | null)?.access_token;
    if (result.status === 200 && typeof token === 'string') return signedIn(token);
    const problem = problemOf(result, {
      messages: {
        invalid_second_factor_code:
          field === 'code'
            ? 'That code is not right. Enter the code the app shows now.'
            : 'That recovery code is not right, or it was used already.',
        invalid_login_challenge: first.challengeEnded,
      },
      fields: { invalid_second_factor_code: field },
    });
    if (problem.code === 'invalid_login_challenge') return toFirstStep(problem);
    showProblem(problem, form);
  }
  // Apps show the code as "123 456"; what counts is the digits.
  onSubmit('second-factor-form', ({ code }, form) => answerChallenge({ code: code.replace(/\s/g, '') }, form, 'code'));
  onSubmit('recovery-form', ({ recovery_code }, form) =>
    answerChallenge({ recovery_code: recovery_code.trim() }, form, 'recovery_code'),
  );
  onClick('use-recovery-button', async () => answerWith(true));
  onClick('use-totp-button', async () => answerWith(false));
  onClick('second-factor-cancel', async () => toFirstStep());

  return { afterFirstStep, signedIn, toFirstStep, challenge: () => challenge, challengeEnded: first.challengeEnded };
}
