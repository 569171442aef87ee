import type { BrowserDocument } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

/** Registration (`/register`): the account is created, and the page says to open the emailed link. */
export function registerPage({ callApi, hide, onSubmit, problemOf, show, showProblem }: PageKit): void {
  onSubmit('register-form', async (values, form) => {
    const { username, email, password } = values;
    const result = await callApi('POST', '/register', { username, email, password });
    if (result.status === 201) {
      form.reset();
      hide('register-form');
      // The providers' links (where configured) are another way to create the account, not a next step.
      if (document.getElementById('oidc-sign-in')) hide('oidc-sign-in');
      show('register-done', 'register-done-title');
      return;
    }
    showProblem(
      problemOf(result, {
        fields: { invalid_username: 'username', invalid_email: 'email', weak_password: 'password' },
      }),
      form,
    );
  });
}
