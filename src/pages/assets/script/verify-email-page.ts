import type { BrowserDocument } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

/** The verification link's page (`/verify-email`): confirm the address, or ask for a new link. */
export function verifyEmailPage({
  callApi,
  hide,
  linkToken,
  onClick,
  onSubmit,
  problemOf,
  show,
  showNotice,
  showProblem,
}: PageKit): void {
  // The server renders the confirmation, naming the account, only for a live token; otherwise the resend form.
  if (document.getElementById('verify-button'))
    onClick('verify-button', async () => {
      const result = await callApi('POST', '/verify-email', { token: linkToken });
      if (result.status === 200) {
        hide('verify-confirm');
        show('verify-done', 'verify-done-title');
        return;
      }
      const problem = problemOf(result, {
        messages: {
          invalid_verification_token:
            'This link does not work: it was already used, has expired, or was replaced by a newer one. ' +
            'Ask for a new link below.',
        },
      });
      // Only a refused token is final; after a network failure, a limit or an overload the button works again.
      if (problem.code === 'invalid_verification_token' || problem.code === 'validation_error') {
        hide('verify-confirm');
        show('resend');
      }
      showProblem(problem);
    });
  onSubmit('resend-form', async ({ email }, form) => {
    const result = await callApi('POST', '/resend-verification', { email });
    if (result.status === 200) {
      form.reset();
      showNotice(String((result.body as { detail?: unknown }).detail ?? 'Sent.'));
      return;
    }
    showProblem(problemOf(result), form);
  });
}
