import type { Problem } from './api-calls';
import type { BrowserDocument } from './browser';
import type { PageKit } from './page-kit';
import type { passkeyLogin } from './passkey-login';
import type { secondFactorStep } from './second-factor-step';

declare const document: BrowserDocument;

/**
 * Sign-in (`/login`): the password (or, where passkeys are configured, a passkey: passkey-login.ts), then, for an
 * account with two-factor sign-in, a code, a recovery code or a passkey (second-factor-step.ts). The providers'
 * links, where configured, need no script: they leave for the provider.
 */
export function loginPage(
  kit: PageKit,
  parts: { passkeyLogin: typeof passkeyLogin; secondFactorStep: typeof secondFactorStep },
): void {
  const { byId, callApi, clearMessages, hide, onSubmit, problemOf, show, showProblem } = kit;
  const passwordForm = byId('login-form');
  /** The other ways in, beside the password form: shown and hidden with it. */
  const others = ['passkey-login', 'oidc-sign-in'].filter((id) => document.getElementById(id));

  const steps = parts.secondFactorStep(kit, {
    hide() {
      // The password has done its work: the challenge stands for it now, so it does not stay in the page.
      byId('login-form-password').value = '';
      hide('login-form');
      hide('login-aside');
      for (const id of others) hide(id);
    },
    show(problem?: Problem) {
      show('login-form');
      show('login-aside');
      for (const id of others) if (id !== 'passkey-login' || kit.passkeys.supported) show(id);
      if (problem) return showProblem(problem, passwordForm);
      clearMessages();
      byId('login-form-password').focus();
    },
    challengeEnded: 'This sign-in ran out of time or of tries. Enter your password again to start over.',
  });

  onSubmit('login-form', async ({ username, password }, form) => {
    const result = await callApi('POST', '/login', { username, password });
    if (steps.afterFirstStep(result)) return;
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

  // The markup has the passkey parts only where passkeys are configured.
  if (document.getElementById('passkey-login')) parts.passkeyLogin(kit, steps);
}
