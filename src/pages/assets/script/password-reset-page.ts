import type { PageKit } from './page-kit';

/**
 * The password reset (`/password-reset`): ask for a link, or, opened from one, set the new password, revoking every
 * API key too when the box is ticked. The success text says whether the keys were kept or revoked.
 */
export function passwordResetPage({
  byId,
  callApi,
  hide,
  linkToken,
  onSubmit,
  problemOf,
  show,
  showNotice,
  showProblem,
}: PageKit): void {
  if (linkToken) {
    hide('reset-request');
    show('reset-confirm');
  }
  onSubmit('reset-confirm-form', async ({ new_password, revoke_api_keys }, form) => {
    const revoke = revoke_api_keys === 'true';
    const body = revoke
      ? { token: linkToken, new_password, revoke_api_keys: true }
      : { token: linkToken, new_password };
    const result = await callApi('POST', '/password-reset/confirm', body);
    if (result.status === 200) {
      form.reset();
      byId('reset-done-keys-kept').hidden = revoke;
      byId('reset-done-keys-revoked').hidden = !revoke;
      hide('reset-confirm');
      show('reset-done', 'reset-done-title');
      return;
    }
    const problem = problemOf(result, {
      messages: {
        invalid_password_reset_token:
          'This link does not work: it was already used, has expired, or was replaced by a newer one. ' +
          'Ask for a new link below.',
      },
      fields: { weak_password: 'new_password' },
    });
    if (problem.code === 'invalid_password_reset_token') {
      hide('reset-confirm');
      show('reset-request');
    }
    showProblem(problem, form);
  });
  onSubmit('reset-request-form', async ({ email }, form) => {
    const result = await callApi('POST', '/password-reset/request', { email });
    if (result.status === 200) {
      form.reset();
      showNotice(String((result.body as { detail?: unknown }).detail ?? 'Sent.'));
      return;
    }
    showProblem(problemOf(result), form);
  });
}
