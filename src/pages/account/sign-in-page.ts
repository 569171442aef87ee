import { MAX_PASSWORD, MAX_USERNAME } from '../../controllers/dto/bounds';
import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { providerSignIn } from '../oidc-fields';
import { passkeySignIn } from '../passkey-fields';
import type { PageContext } from '../views/page-context';
import { secondFactorStep } from '../second-factor-fields';

/**
 * GET {prefix}/login: username and password; a session is kept for this tab, then the account page opens. For an
 * account with two-factor sign-in the password step is answered with a challenge: the script then hides it and
 * shows the second step, a code from the authenticator app or, one click away, a recovery code. With passkeys
 * configured: a "Continue with a passkey" button and the browser's autofill of passkeys (no username), and a passkey
 * as the second step's answer when the account has one. With OpenID providers configured: "Continue with <name>"
 * for each, a link that starts the provider's sign-in.
 */
export function signInPage({ prefix, loginChallengeTtlMs, passkeys, oidcProviders = [] }: PageContext): string {
  const id = 'login-form';
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
${providerSignIn(prefix, oidcProviders)}
${secondFactorStep({ prefix, loginChallengeTtlMs, passkeys, lead: 'Your password is right.' })}
<ul class="aside" id="login-aside">
<li><a href="${prefix}/password-reset">Forgot your password?</a></li>
<li><a href="${prefix}/verify-email">Need a new email verification link?</a></li>
<li>New here? <a href="${prefix}/register">Create an account</a>.</li>
</ul>`;
  return layout({ prefix, title: 'Sign in', page: 'login', body, webauthn: passkeys });
}
