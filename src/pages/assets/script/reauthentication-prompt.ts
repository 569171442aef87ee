import type { BrowserDocument } from './browser';
import type { AfterFailure, Reauthentication, SharedKit } from './page-kit';

declare const document: BrowserDocument;

/**
 * "Confirm it is you" (`reauthenticationPrompt` in the markup), one for every page that has it (security,
 * administration): the password, and a code while two-factor sign-in is on, to POST /reauthenticate, then the
 * refused request again. Told `second_factor_required` (turned on elsewhere since), it asks for the code from then
 * on. Where passkeys are offered, "Use a passkey instead" proves it with an assertion (POST
 * /passkeys/reauthentication-options, the ceremony, POST /passkeys/reauthenticate), which moves this session's
 * proof without a new session. `afterFailure` is the page's own handling of a refusal; `cancelFocus` names what
 * takes the focus on Cancel.
 */
export function reauthentication(
  { byId, callApi, clearMessages, hide, onClick, onSubmit, passkeys, problemOf, proofOf, show }: SharedKit,
  token: string,
  afterFailure: AfterFailure,
  cancelFocus: () => string,
): Reauthentication {
  /** What to do again once the proof is given: the action the API refused for want of it. */
  let pending: (() => Promise<void>) | null = null;
  const askCode = (on: boolean) => {
    byId('reauth-code').hidden = !on;
    const input = byId('reauth-form-code');
    if (on) input.setAttribute('required', '');
    else input.removeAttribute('required');
  };
  onSubmit('reauth-form', async ({ password, code }, form) => {
    const asksCode = !byId('reauth-code').hidden;
    const body = asksCode ? { password, code: proofOf(code) } : { password };
    const result = await callApi('POST', '/reauthenticate', body, token);
    if (result.status !== 200) {
      const problem = problemOf(result, {
        messages: {
          invalid_credentials: 'The password is wrong.',
          second_factor_required: 'Two-factor sign-in is on: enter a code from your authenticator app too.',
          invalid_second_factor_code:
            'That code is not right. Enter the code the app shows now, or an unused recovery code.',
        },
        fields: {
          invalid_credentials: 'password',
          second_factor_required: 'code',
          invalid_second_factor_code: 'code',
        },
      });
      if (problem.code === 'second_factor_required') askCode(true);
      return afterFailure(problem, form);
    }
    form.reset();
    await proved();
  });

  /** The proof is given: the prompt closes and the refused request goes again. */
  async function proved(): Promise<void> {
    byId('reauth-form').reset();
    hide('reauth');
    const next = pending;
    pending = null;
    if (next) await next();
  }

  // Only where the page renders it (passkeys configured).
  const passkeyButton = document.getElementById('reauth-passkey');
  if (passkeyButton) {
    onClick('reauth-passkey', async () => {
      clearMessages();
      const options = await callApi('POST', '/passkeys/reauthentication-options', undefined, token);
      if (options.status !== 200) return afterFailure(problemOf(options));
      const outcome = await passkeys.get(options.body);
      if ('cancelled' in outcome) return;
      if ('problem' in outcome) return afterFailure(outcome.problem);
      const result = await callApi('POST', '/passkeys/reauthenticate', { response: outcome.response }, token);
      if (result.status !== 204 && result.status !== 200) {
        return afterFailure(
          problemOf(result, {
            messages: { invalid_credentials: 'That passkey was not accepted. Try another, or enter your password.' },
          }),
        );
      }
      await proved();
    });
  }
  onClick('reauth-cancel', async () => {
    pending = null;
    byId('reauth-form').reset();
    clearMessages();
    hide('reauth');
    byId(cancelFocus()).focus();
  });
  return {
    ask(retry) {
      pending = retry;
      clearMessages();
      show('reauth', 'reauth-form-password');
    },
    askCode,
    async loadSecondFactor() {
      const result = await callApi('GET', '/second-factor', undefined, token);
      const enabled = (result.body as { enabled?: unknown } | null)?.enabled;
      if (result.status === 200 && typeof enabled === 'boolean') askCode(enabled);
    },
    offerPasskey(on) {
      if (passkeyButton) passkeyButton.hidden = !(on && passkeys.supported);
    },
  };
}
