import type { Problem } from './api-calls';
import type { BrowserDocument, BrowserHistory, BrowserLocation } from './browser';
import type { PageKit } from './page-kit';
import type { passkeyLogin } from './passkey-login';
import type { secondFactorStep } from './second-factor-step';

declare const document: BrowserDocument;
declare const location: BrowserLocation;
declare const history: BrowserHistory;

/**
 * The provider's return page (`/oidc/return`): the fragment's one-time code (`#code=`) to POST /oidc/exchange, which
 * answers as POST /login does (a session, or a second-factor challenge, then the sign-in page's second step), or
 * `{ linked }` after a link started on the security page. `#error=` is the provider's refusal, or an answer that
 * failed the checks: nothing to send.
 */
export async function oidcReturnPage(
  kit: PageKit,
  parts: { secondFactorStep: typeof secondFactorStep; passkeyLogin: typeof passkeyLogin },
): Promise<void> {
  const { api, byId, callApi, hide, leave, problemOf, show, showProblem, takeProvider } = kit;
  // Read once and at once taken out of the address bar and this history entry: the code works once, and a reload
  // or a bookmark must not send it again.
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  if (location.hash) history.replaceState(null, '', location.pathname);
  const code = fragment.get('code') ?? '';
  const error = fragment.get('error') ?? '';
  // The name the sign-in page's link or the security page's button went to; the answers below do not carry it.
  const provider = takeProvider() ?? '';
  const named = provider || 'your provider';

  function failed(problem: Problem): void {
    hide('oidc-working');
    show('oidc-failed');
    showProblem(problem);
  }
  const failure = (message: string, problemCode = 'oidc'): Problem => ({ code: problemCode, message, fields: {} });

  const steps = parts.secondFactorStep(kit, {
    hide: () => hide('oidc-working'),
    // This page has no first step of its own to go back to: the sign-in page has them all.
    show: (problem?: Problem) => (problem ? failed(problem) : location.assign(`${api}/login`)),
    challengeEnded: 'This sign-in ran out of time or of tries. Start again from the sign-in page.',
  });
  if (document.getElementById('use-passkey-button')) parts.passkeyLogin(kit, steps);

  if (error || !code) {
    const messages: Record<string, string> = {
      // The fragment's errors (OidcFragmentError in services/oidc/oidc-sign-in.ts).
      cancelled: `The sign-in was cancelled at ${named}, so nothing changed here.`,
      provider_unavailable: `${provider || 'Your provider'} could not answer just now. Try again in a few minutes.`,
      email_required: `${provider || 'Your provider'} gave no verified email address, so no account could be made.`,
    };
    return failed(
      failure(
        error
          ? (messages[error] ?? `The answer of ${named} could not be accepted, so nothing changed here. Try again.`)
          : 'There is nothing to finish here: start from the sign-in page.',
        error || 'oidc',
      ),
    );
  }

  const result = await callApi('POST', '/oidc/exchange', { code });
  if (steps.afterFirstStep(result)) return;
  const linked = (result.body as { linked?: unknown } | null)?.linked as
    { provider_name?: unknown; providerName?: unknown } | undefined;
  if (result.status === 200 && linked && typeof linked === 'object') {
    // The API's lists are snake_case; the service's view is camelCase: either names the provider.
    const name = [linked.provider_name, linked.providerName, provider].find((value) => typeof value === 'string');
    return leave('/security', `${String(name || 'The provider')} is linked: you can sign in with it now.`);
  }
  const problem = problemOf(result, {
    messages: {
      invalid_oidc_code: 'This answer of your provider was used already or is too old. Start again.',
      identity_already_linked: `This ${named} account is linked to another account already.`,
      email_domain_not_allowed: `The address ${named} gave is outside the domains this site accepts for it.`,
      unverified_user:
        'Your email address is not confirmed yet. Open the link we emailed you, then continue with your provider again.',
    },
  });
  if (problem.code === 'link_required') {
    hide('oidc-working');
    byId('oidc-link-required-text').textContent =
      `An account already uses the address ${named} gave. If it is yours, sign in to it and link ${named} from ` +
      'the security page.';
    return show('oidc-link-required', 'oidc-link-required-title');
  }
  failed(problem);
}
