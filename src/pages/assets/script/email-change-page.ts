import type { BrowserDocument } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

/** The email change link's page (`/email-change/confirm`): the person confirms the new address. */
export function emailChangeConfirmPage({
  callApi,
  hide,
  linkToken,
  onClick,
  problemOf,
  show,
  showProblem,
}: PageKit): void {
  // The server renders the button, naming the account and the address, only for a live token.
  if (!document.getElementById('email-change-button')) return;
  onClick('email-change-button', async () => {
    const result = await callApi('POST', '/email-change/confirm', { token: linkToken });
    if (result.status === 200) {
      hide('email-change-confirm');
      show('email-change-done', 'email-change-done-title');
      return;
    }
    const problem = problemOf(result, {
      messages: {
        invalid_email_change_token:
          'This link does not work: it was already used, has expired, was replaced by a newer request, or the ' +
          'address now belongs to another account.',
      },
    });
    // Only a refused token is final; after a network failure, a limit or an overload the button works again.
    if (problem.code === 'invalid_email_change_token' || problem.code === 'validation_error') {
      hide('email-change-confirm');
      show('email-change-failed');
    }
    showProblem(problem);
  });
}
