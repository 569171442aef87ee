import { MAX_PASSWORD, MAX_USERNAME } from '../../controllers/dto/bounds';
import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import type { PageContext } from './page-context';

/** GET {prefix}/login: username and password; a session is kept for this tab, then the account page opens. */
export function signInPage({ prefix }: PageContext): string {
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
        autocomplete: 'username',
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
<ul class="aside">
<li><a href="${prefix}/password-reset">Forgot your password?</a></li>
<li><a href="${prefix}/verify-email">Need a new email verification link?</a></li>
<li>New here? <a href="${prefix}/register">Create an account</a>.</li>
</ul>`;
  return layout({ prefix, title: 'Sign in', page: 'login', body });
}
