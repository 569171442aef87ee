import type { Problem } from './api-calls';
import type { BrowserDocument, PageElement } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

/** The account page (`/account`): who is signed in, logging out, the password change and the account's deletion. */
export async function accountPage({
  byId,
  callApi,
  endSession,
  hide,
  leave,
  loadSession,
  onClick,
  onSubmit,
  problemOf,
  sessionEnded,
  show,
  showNotice,
  showProblem,
}: PageKit): Promise<void> {
  const token = loadSession();
  const signedOut = (notice?: string) => {
    endSession();
    hide('signed-in');
    show('signed-out');
    if (notice) showNotice(notice);
  };
  if (!token) return signedOut();
  const me = await callApi('GET', '/me', undefined, token);
  if (me.status !== 200) {
    const problem = problemOf(me);
    if (sessionEnded(problem)) return signedOut('Your session has ended. Sign in again.');
    return showProblem(problem);
  }
  showDetails(me.body);
  show('signed-in');

  /** After an action that ends this session, or a request that found it already ended. */
  const afterFailure = (problem: Problem, form?: PageElement) => {
    if (sessionEnded(problem)) return leave('/login', 'Your session has ended. Sign in again.');
    showProblem(problem, form);
  };
  onClick('logout-button', async () => {
    const result = await callApi('POST', '/logout', undefined, token);
    if (result.status !== 200 && !sessionEnded(problemOf(result))) return showProblem(problemOf(result));
    endSession();
    leave('/login', 'You are logged out.');
  });
  onClick('logout-all-button', async () => {
    const result = await callApi('POST', '/logout-all', undefined, token);
    if (result.status !== 200) return afterFailure(problemOf(result));
    endSession();
    leave('/login', 'You are logged out on every device.');
  });
  onSubmit('change-form', async ({ old_password, new_password, revoke_api_keys }, form) => {
    // The API keys go only when the box is ticked: kept, the field is left out, as the API's default.
    const body =
      revoke_api_keys === 'true'
        ? { old_password, new_password, revoke_api_keys: true }
        : { old_password, new_password };
    const result = await callApi('POST', '/password/change', body, token);
    if (result.status === 200) {
      endSession();
      return leave(
        '/login',
        revoke_api_keys === 'true'
          ? 'Your password has been changed, every session ended and every API key revoked. Sign in with the new one.'
          : 'Your password has been changed and every session ended. Sign in with the new one.',
      );
    }
    afterFailure(
      problemOf(result, {
        messages: { invalid_credentials: 'The current password is wrong.' },
        fields: { invalid_credentials: 'old_password', weak_password: 'new_password' },
      }),
      form,
    );
  });
  onSubmit('delete-form', async ({ password }, form) => {
    const result = await callApi('DELETE', '/account', { password }, token);
    if (result.status === 200) {
      endSession();
      return leave('/register', 'Your account has been deleted.');
    }
    afterFailure(
      problemOf(result, {
        messages: { invalid_credentials: 'The password is wrong.' },
        fields: { invalid_credentials: 'password' },
      }),
      form,
    );
  });

  /** GET /me's answer as a list of terms, whatever the host's serializer puts in it. */
  function showDetails(user: unknown): void {
    const list = byId('me');
    list.replaceChildren();
    for (const [key, value] of Object.entries((user ?? {}) as Record<string, unknown>)) {
      const term = document.createElement('dt');
      const words = key.replace(/_/g, ' ');
      term.textContent = words.charAt(0).toUpperCase() + words.slice(1);
      const description = document.createElement('dd');
      description.textContent =
        typeof value === 'boolean' ? (value ? 'Yes' : 'No') : typeof value === 'string' ? value : JSON.stringify(value);
      list.append(term, description);
    }
  }
}
