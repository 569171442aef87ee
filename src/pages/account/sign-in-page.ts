import { MAX_PASSWORD, MAX_USERNAME } from '../../controllers/dto/bounds';
import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { passkeySecondFactorButton, passkeySignIn } from '../passkey-fields';
import { durationText } from '../policy-text';
import type { PageContext } from '../views/page-context';
import { RECOVERY_CODE_MAX, totpField } from '../second-factor-fields';

/**
 * GET {prefix}/login: username and password; a session is kept for this tab, then the account page opens. For an
 * account with two-factor sign-in the password step is answered with a challenge: the script then hides it and
 * shows the second step, a code from the authenticator app or, one click away, a recovery code. With passkeys
 * configured: a "Continue with a passkey" button and the browser's autofill of passkeys (no username), and a passkey
 * as the second step's answer when the account has one.
 */
export function signInPage({ prefix, loginChallengeTtlMs, passkeys }: PageContext): string {
  const id = 'login-form';
  const codeId = 'second-factor-form';
  const recoveryId = 'recovery-form';
  const body = html`${form({
    id,
    action: `${prefix}/login`,
    submit: 'Sign in',
    fields: [
      field({
        form: id,
        name: 'username',
        label: 'Username',
        // `webauthn`: the browser may offer the passkeys it holds for this site in the field's autofill.
        autocomplete: passkeys ? 'username webauthn' : 'username',
        missing: 'Enter your username',
        maxLength: MAX_USERNAME,
      }),
      field({
        form: id,
        name: 'password',
        label: 'Password',
        type: 'password',
        autocomplete: 'current-password',
        missing: 'Enter your password',
        maxLength: MAX_PASSWORD,
      }),
    ],
  })}
${passkeys ? passkeySignIn() : ''}
<section id="second-factor" hidden aria-labelledby="second-factor-title">
<h2 id="second-factor-title" tabindex="-1">Two-factor sign-in</h2>
<p>Your password is right. Finish signing in within ${durationText(loginChallengeTtlMs)}.</p>
${form({
  id: codeId,
  action: `${prefix}/login/second-factor`,
  submit: 'Continue',
  fields: [totpField(codeId)],
})}
${form({
  id: recoveryId,
  action: `${prefix}/login/second-factor`,
  submit: 'Continue',
  hidden: true,
  fields: [
    field({
      form: recoveryId,
      name: 'recovery_code',
      label: 'Recovery code',
      hint: 'One of the codes you stored when you set up two-factor sign-in. Each works once.',
      autocomplete: 'one-time-code',
      missing: 'Enter one of your recovery codes',
      maxLength: RECOVERY_CODE_MAX,
    }),
  ],
})}
<div class="actions">
<button type="button" id="use-recovery-button" class="secondary">Use a recovery code</button>
<button type="button" id="use-totp-button" class="secondary" hidden>Use the code from my app</button>
${passkeys ? passkeySecondFactorButton() : ''}
<button type="button" id="second-factor-cancel" class="secondary">Start again</button>
</div>
</section>
<ul class="aside" id="login-aside">
<li><a href="${prefix}/password-reset">Forgot your password?</a></li>
<li><a href="${prefix}/verify-email">Need a new email verification link?</a></li>
<li>New here? <a href="${prefix}/register">Create an account</a>.</li>
</ul>`;
  return layout({ prefix, title: 'Sign in', page: 'login', body, webauthn: passkeys });
}
