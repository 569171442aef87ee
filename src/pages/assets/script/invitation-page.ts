import type { Problem } from './api-calls';
import type { PageKit } from './page-kit';

/** POST /invitations/preview's answer. */
interface InvitationPreview {
  organization: { id: string; name: string };
  role: string;
  invited_by: string | null;
  expires_at: string;
}

/**
 * The invitation link's page (`/invitation?token=...`). The token (taken out of the address bar by `runPages`) is
 * kept for this tab, so that a newcomer who leaves to sign up, confirms the address and signs in in this tab comes
 * back here (the sign-in opens this page while a token is kept), and is never put in another URL. The page shows what
 * the invitation is (POST /invitations/preview, no session needed), then: signed out, the ways to sign in or sign up;
 * signed in, who is signed in, and Accept (POST /invitations/accept, which opens the organization's page) or Decline
 * (POST /invitations/decline). An account that is not the invited address's gets the API's refusal in words and may
 * sign in with another; the invitation stays for the right one. A dead token is said as such and forgotten.
 */
export async function invitationPage({
  byId,
  callApi,
  dropInvitation,
  endSession,
  hide,
  keepInvitation,
  keptInvitation,
  leave,
  linkToken,
  loadSession,
  onClick,
  problemOf,
  sessionEnded,
  show,
  showProblem,
  timeOf,
}: PageKit): Promise<void> {
  if (linkToken) keepInvitation(linkToken);
  const token = linkToken || keptInvitation() || '';

  const dead = (problem?: Problem) => {
    dropInvitation();
    hide('invitation-working');
    hide('invitation');
    show('invitation-dead', 'invitation-dead-title');
    if (problem && problem.code !== 'invalid_invitation_token' && problem.code !== 'validation_error') {
      showProblem(problem);
    }
  };
  if (!token) return dead();

  const preview = await callApi('POST', '/invitations/preview', { token });
  const invitation = preview.body as InvitationPreview | null;
  if (preview.status !== 200 || typeof invitation?.organization?.name !== 'string') {
    const problem = problemOf(preview);
    // Only a refused token is final; after a network failure, a limit or an overload a reload tries again.
    if (problem.code === 'invalid_invitation_token' || problem.code === 'validation_error') return dead();
    hide('invitation-working');
    return showProblem(problem);
  }
  const name = invitation.organization.name;
  byId('invitation-organization').textContent = name;
  byId('invitation-role').textContent = invitation.role;
  byId('invitation-by').textContent = invitation.invited_by ?? 'An account that no longer exists';
  byId('invitation-expires').replaceChildren(timeOf(invitation.expires_at));
  hide('invitation-working');
  show('invitation');

  const session = loadSession();
  const signedOut = () => {
    hide('invitation-signed-in');
    show('invitation-signed-out');
  };
  if (!session) return signedOut();
  const me = await callApi('GET', '/me', undefined, session);
  if (me.status !== 200) {
    const problem = problemOf(me);
    if (!sessionEnded(problem)) return showProblem(problem);
    endSession();
    return signedOut();
  }
  const account = me.body as { username?: unknown; email?: unknown } | null;
  const who = [account?.username, account?.email].filter((part) => typeof part === 'string' && part !== '');
  byId('invitation-account').textContent =
    who.length > 0 ? `You are signed in as ${who.join(', ')}.` : 'You are signed in.';
  show('invitation-signed-in');

  const wording = {
    messages: {
      invitation_address_mismatch:
        'This invitation was sent to another email address than the one of the account you are signed in with, ' +
        'or that address is not confirmed yet. Sign in with the account of the invited address to answer it.',
      invalid_invitation_token:
        'This invitation does not work any more: it was answered, has expired, was cancelled or was replaced.',
      organization_limit_reached: 'You belong to as many organizations as this server allows: leave one first.',
      already_member: `You are a member of ${name} already.`,
      unverified_user: 'Confirm your email address first: open the link we emailed you, then come back here.',
      member_limit_reached: `${name} has as many members as it may have. Ask the person who invited you.`,
    },
  };
  function refused(problem: Problem): void {
    if (sessionEnded(problem)) {
      endSession();
      return leave('/login', 'Your session has ended. Sign in again to answer the invitation.');
    }
    if (problem.code === 'invalid_invitation_token') return dead(problem);
    showProblem(problem);
  }

  onClick('accept-button', async () => {
    const result = await callApi('POST', '/invitations/accept', { token }, session);
    const organization = result.body as { id?: unknown } | null;
    if (result.status === 200 && typeof organization?.id === 'string') {
      dropInvitation();
      return leave(`/organization#id=${encodeURIComponent(organization.id)}`, `You joined ${name}.`);
    }
    refused(problemOf(result, wording));
  });
  onClick('decline-button', async () => {
    const result = await callApi('POST', '/invitations/decline', { token }, session);
    if (result.status === 204 || result.status === 200) {
      dropInvitation();
      hide('invitation');
      return show('invitation-declined', 'invitation-declined-title');
    }
    refused(problemOf(result, wording));
  });
  // Another account: this session ends (the token stays kept), and the sign-in brings the person back here.
  onClick('switch-account-button', async () => {
    await callApi('POST', '/logout', undefined, session);
    endSession();
    leave('/login', 'Sign in with the account of the invited address: you come back to the invitation.');
  });
}
