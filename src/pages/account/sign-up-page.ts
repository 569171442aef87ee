import { MAX_PASSWORD, MAX_USERNAME } from '../../controllers/dto/bounds';
import { USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH } from '../../services/identity';
import { emailField, field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { providerSignIn } from '../oidc-fields';
import { passwordHint } from '../policy-text';
import type { PageContext } from '../views/page-context';

/**
 * GET {prefix}/register: the sign-up form, then a "check your email" panel. With OpenID providers configured, their
 * "Continue with <name>" links too: a first sign-in through a provider creates the account.
 */
export function signUpPage({ prefix, passwordPolicy, oidcProviders = [] }: PageContext): string {
  const id = 'register-form';
  const body = html`${form({
    id,
    action: `${prefix}/register`,
    submit: 'Create account',
    fields: [
      field({
        form: id,
        name: 'username',
        label: 'Username',
        autocomplete: 'username',
        hint:
          `${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} letters (A-Z), digits, dots, dashes or underscores, ` +
          'starting with a letter or digit. Other people may see it.',
        missing: 'Enter a username',
        maxLength: MAX_USERNAME,
      }),
      emailField(id, 'We send a link to this address to confirm it is yours.'),
      field({
        form: id,
        name: 'password',
        label: 'Password',
        type: 'password',
        autocomplete: 'new-password',
        hint: passwordHint(passwordPolicy),
        missing: 'Enter a password',
        maxLength: MAX_PASSWORD,
      }),
      field({
        form: id,
        name: 'password_again',
        label: 'Password again',
        type: 'password',
        autocomplete: 'new-password',
        missing: 'Enter the password a second time',
        sameAs: { name: 'password', message: 'The two passwords are not the same' },
        maxLength: MAX_PASSWORD,
      }),
    ],
  })}
${providerSignIn(prefix, oidcProviders)}
<section id="register-done" hidden aria-labelledby="register-done-title">
<h2 id="register-done-title" tabindex="-1">Check your email</h2>
<p>A message is on its way to the address you gave. Open the link in it to confirm the address, then sign in.</p>
<p>No message after a few minutes? <a href="${prefix}/verify-email">Ask for a new link</a>.</p>
</section>
<p class="aside">Already have an account? <a href="${prefix}/login">Sign in</a>.</p>`;
  return layout({ prefix, title: 'Create an account', page: 'register', body });
}
