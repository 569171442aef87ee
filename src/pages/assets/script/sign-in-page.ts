import type { ApiResult, Problem } from './api-calls';
import type { BrowserDocument, BrowserLocation, PageElement } from './browser';
import type { Values } from './form-helpers';
import type { PageKit } from './page-kit';
import type { passkeyLogin } from './passkey-login';

declare const document: BrowserDocument;
declare const location: BrowserLocation;

/**
 * Sign-in (`/login`): the password (or, where passkeys are configured, a passkey: passkey-login.ts), then, for an
 * account with two-factor sign-in, a code, a recovery code or a passkey.
 */
export function loginPage(kit: PageKit, parts: { passkeyLogin: typeof passkeyLogin }): void {
  const { api, byId, callApi, clearMessages, hide, onClick, onSubmit, problemOf, saveSession, show, showProblem } = kit;
  /**
   * The challenge the password step gave an account with two-factor sign-in: kept in this page's memory only, so
   * it dies with the page, and sent with the code that answers it.
   */
  let challenge = '';
  const passwordForm = byId('login-form');

  /** Back to the password, after a challenge that died (expired, too many answers) or at the person's wish. */
  function toPasswordStep(problem?: Problem): void {
    challenge = '';
    byId('second-factor-form').reset();
    byId('recovery-form').reset();
    hide('second-factor');
    show('login-form');
    show('login-aside');
    if (document.getElementById('passkey-login') && kit.passkeys.supported) show('passkey-login');
    if (problem) return showProblem(problem, passwordForm);
    clearMessages();
    byId('login-form-password').focus();
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

  /** Signed in: the session is kept for this tab, and the account page opens. */
  function signedIn(token: string): void {
    saveSession(token);
    location.assign(`${api}/account`);
  }

  /**
   * The answer of the first step (POST /login, or POST /passkeys/login, which answers alike): signed in, or the
   * second step shown (with "Use a passkey" when the challenge lists `passkey`). False for a refusal, left to the
   * caller to word.
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
      // The password has done its work: the challenge stands for it now, so it does not stay in the page.
      byId('login-form-password').value = '';
      hide('login-form');
      hide('login-aside');
      if (document.getElementById('passkey-login')) hide('passkey-login');
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

  onSubmit('login-form', async ({ username, password }, form) => {
    const result = await callApi('POST', '/login', { username, password });
    if (afterFirstStep(result)) return;
    showProblem(
      problemOf(result, {
        messages: {
          invalid_credentials: 'The username or the password is wrong.',
          unverified_user:
            'Your email address is not confirmed yet. Open the link we emailed you, or ask for a new link below.',
        },
      }),
      form,
    );
  });

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
        invalid_login_challenge: 'This sign-in ran out of time or of tries. Enter your password again to start over.',
      },
      fields: { invalid_second_factor_code: field },
    });
    if (problem.code === 'invalid_login_challenge') return toPasswordStep(problem);
    showProblem(problem, form);
  }
  // Apps show the code as "123 456"; what counts is the digits.
  onSubmit('second-factor-form', ({ code }, form) => answerChallenge({ code: code.replace(/\s/g, '') }, form, 'code'));
  onSubmit('recovery-form', ({ recovery_code }, form) =>
    answerChallenge({ recovery_code: recovery_code.trim() }, form, 'recovery_code'),
  );
  onClick('use-recovery-button', async () => answerWith(true));
  onClick('use-totp-button', async () => answerWith(false));
  onClick('second-factor-cancel', async () => toPasswordStep());

  // The markup has the passkey parts only where passkeys are configured.
  if (document.getElementById('passkey-login')) {
    parts.passkeyLogin(kit, { afterFirstStep, signedIn, toPasswordStep, challenge: () => challenge });
  }
}
