import type { BrowserDocument } from './browser';
import type { PageKit } from './page-kit';
import type { SignInSteps } from './second-factor-step';

declare const document: BrowserDocument;

/**
 * The sign-in page's passkeys: "Continue with a passkey" (no username: the passkey names the account), the browser's
 * autofill of passkeys in the username field where it supports conditional mediation, and "Use a passkey" as the
 * answer of the second step, which the provider's return page has too (without the first two). Each ceremony gets
 * fresh options from the API (POST /passkeys/login-options, or /passkeys/second-factor-options with the challenge)
 * and sends what the browser gives back.
 */
export function passkeyLogin(
  { byId, callApi, clearMessages, onClick, passkeys, problemOf, show, showProblem }: PageKit,
  { afterFirstStep, signedIn, toFirstStep, challenge, challengeEnded }: SignInSteps,
): void {
  if (!passkeys.supported) return;
  const refused = 'That passkey was not accepted. Try another passkey, or sign in with your password.';

  /** A passwordless sign-in: the options, the ceremony (the button's, or the autofill's), and the answer. */
  async function signIn(autofill: boolean): Promise<void> {
    const options = await callApi('POST', '/passkeys/login-options');
    if (options.status !== 200) {
      // The autofill is an offer, not a request the person made: its failure is not shown; the button's is.
      if (!autofill) showProblem(problemOf(options));
      return;
    }
    const outcome = await passkeys.get(options.body, autofill);
    if ('cancelled' in outcome) return;
    if ('problem' in outcome) {
      if (!autofill) showProblem(outcome.problem);
      return;
    }
    const result = await callApi('POST', '/passkeys/login', { response: outcome.response });
    if (afterFirstStep(result)) return;
    showProblem(problemOf(result, { messages: { invalid_credentials: refused } }));
  }

  /**
   * The autofill waits for the person to pick a passkey in the username field; a ceremony the page starts ends it,
   * so it is started again after each ceremony that did not sign in.
   */
  async function offerAutofill(): Promise<void> {
    if (await passkeys.autofillAvailable()) await signIn(true);
  }

  onClick('use-passkey-button', async () => {
    clearMessages();
    const challengeToken = challenge();
    const options = await callApi('POST', '/passkeys/second-factor-options', { challenge_token: challengeToken });
    const wording = {
      messages: {
        invalid_second_factor_code: refused,
        invalid_login_challenge: challengeEnded,
      },
    };
    if (options.status !== 200) {
      const problem = problemOf(options, wording);
      return problem.code === 'invalid_login_challenge' ? toFirstStep(problem) : showProblem(problem);
    }
    const outcome = await passkeys.get(options.body);
    if ('cancelled' in outcome) return;
    if ('problem' in outcome) return showProblem(outcome.problem);
    const result = await callApi('POST', '/passkeys/second-factor', {
      challenge_token: challengeToken,
      response: outcome.response,
    });
    const token = (result.body as { access_token?: unknown } | null)?.access_token;
    if (result.status === 200 && typeof token === 'string') return signedIn(token);
    const problem = problemOf(result, wording);
    if (problem.code === 'invalid_login_challenge') return toFirstStep(problem);
    showProblem(problem, byId('second-factor-form'));
  });

  // The first step's passkey is the sign-in page's alone.
  if (!document.getElementById('passkey-login')) return;
  show('passkey-login');
  onClick('passkey-login-button', async () => {
    clearMessages();
    await signIn(false);
    void offerAutofill();
  });
  void offerAutofill();
}
