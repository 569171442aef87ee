import type { ApiResult, Problem, Wording } from './api-calls';
import type { BrowserDocument, PageElement } from './browser';
import type { apiKeysSection } from './api-keys-section';
import type { PageKit } from './page-kit';
import type { oidcIdentitiesSection } from './oidc-identities-section';
import type { passkeysSection } from './passkeys-section';
import type { secondFactorSection } from './second-factor-section';

declare const document: BrowserDocument;

interface SessionRow {
  id: string;
  current: boolean;
  created_at: string;
  last_used_at: string;
  ip_address: string | null;
  user_agent: string | null;
  browser: { name?: string; version?: string } | null;
  os: { name?: string; version?: string } | null;
  device: string | null;
}

/**
 * The security page (`/security`): the sessions of the account, the passkeys where they are configured
 * (passkeys-section.ts), the linked providers where OpenID providers are (oidc-identities-section.ts), the
 * two-factor sign-in (second-factor-section.ts), the API keys (api-keys-section.ts) and the email change, each
 * change behind the "confirm it is you"
 * prompt when the API asks for a recent proof.
 */
export async function securityPage(
  kit: PageKit,
  sections: {
    secondFactorSection: typeof secondFactorSection;
    passkeysSection: typeof passkeysSection;
    oidcIdentitiesSection: typeof oidcIdentitiesSection;
    apiKeysSection: typeof apiKeysSection;
  },
): Promise<void> {
  const {
    busy,
    byId,
    callApi,
    clearMessages,
    endSession,
    hide,
    leave,
    loadSession,
    onClick,
    onSubmit,
    problemOf,
    reauthentication,
    sessionEnded,
    show,
    showNotice,
    showProblem,
    timeCell,
  } = kit;
  const token = loadSession();
  if (!token) {
    hide('signed-in');
    return show('signed-out');
  }
  const afterFailure = (problem: Problem, form?: PageElement) => {
    if (sessionEnded(problem)) {
      endSession();
      return leave('/login', 'Your session has ended. Sign in again.');
    }
    showProblem(problem, form);
  };
  const prompt = reauthentication(token, afterFailure, () => 'sessions-title');

  /**
   * Sends a request that may need a recent password. On `reauthentication_required` the password form opens and
   * the same request is sent again once it is confirmed; otherwise `done` takes the answer.
   */
  async function guarded(
    send: () => Promise<ApiResult>,
    done: (result: ApiResult) => Promise<void> | void,
    wording?: Wording,
    form?: PageElement,
  ): Promise<void> {
    const result = await send();
    if (result.status >= 200 && result.status < 300) return done(result);
    const problem = problemOf(result, wording);
    if (problem.code !== 'reauthentication_required') return afterFailure(problem, form);
    prompt.ask(() => guarded(send, done, wording, form));
  }

  async function loadSessions(): Promise<boolean> {
    const result = await callApi('GET', '/sessions', undefined, token);
    const sessions = (result.body as { sessions?: unknown } | null)?.sessions;
    if (result.status !== 200 || !Array.isArray(sessions)) {
      const problem = problemOf(result);
      if (sessionEnded(problem)) {
        endSession();
        hide('signed-in');
        show('signed-out');
        showNotice('Your session has ended. Sign in again.');
      } else showProblem(problem);
      return false;
    }
    byId('sessions-body').replaceChildren(...(sessions as SessionRow[]).map(sessionRow));
    return true;
  }

  /** "Firefox 128 on Windows 10 (mobile)"; the raw User-Agent when it could not be read; or that it is unknown. */
  function deviceText(session: SessionRow): string {
    const named = (part: { name?: string; version?: string } | null) =>
      part?.name ? [part.name, part.version].filter(Boolean).join(' ') : '';
    const browser = named(session.browser);
    const os = named(session.os);
    const device = session.device && session.device !== 'desktop' ? ` (${session.device})` : '';
    if (browser || os) return `${browser || 'Unknown browser'}${os ? ` on ${os}` : ''}${device}`;
    return session.user_agent ?? 'Unknown browser';
  }

  function sessionRow(session: SessionRow): PageElement {
    const row = document.createElement('tr');
    const what = document.createElement('td');
    what.append(deviceText(session));
    if (session.current) {
      const mark = document.createElement('strong');
      mark.setAttribute('class', 'tag');
      mark.textContent = 'This device';
      what.append(' ', mark);
    }
    const ip = document.createElement('td');
    ip.textContent = session.ip_address ?? 'Unknown';
    const action = document.createElement('td');
    const button = document.createElement('button');
    button.setAttribute('type', 'button');
    button.setAttribute('class', 'danger');
    button.setAttribute('data-session', session.id);
    // Each button says which session it ends, for those who reach it without the row around it.
    button.setAttribute(
      'aria-label',
      session.current ? 'End this session (log out here)' : `End the session of ${deviceText(session)}`,
    );
    button.textContent = 'End';
    button.addEventListener('click', () => void busy(button, () => endOne(session)));
    action.append(button);
    row.append(what, ip, timeCell(session.last_used_at), timeCell(session.created_at), action);
    return row;
  }

  async function endOne(session: SessionRow): Promise<void> {
    clearMessages();
    await guarded(
      () => callApi('DELETE', `/sessions/${encodeURIComponent(session.id)}`, undefined, token),
      async () => {
        if (session.current) {
          endSession();
          return leave('/login', 'You are logged out.');
        }
        if (await loadSessions()) showNotice('The session has ended.');
      },
    );
  }

  if (!(await loadSessions())) return;
  hide('signed-out');
  show('signed-in');
  const parts = { token, prompt, afterFailure, guarded, loadSessions };
  // The markup has the passkeys section only where passkeys are configured.
  if (document.getElementById('passkeys')) await sections.passkeysSection(kit, parts);
  // And the linked providers only where OpenID providers are configured.
  if (document.getElementById('oidc-identities')) await sections.oidcIdentitiesSection(kit, parts);
  await sections.secondFactorSection(kit, parts);
  await sections.apiKeysSection(kit, parts);

  onClick('end-others-button', () =>
    guarded(
      () => callApi('POST', '/sessions/end-others', {}, token),
      async (result) => {
        const ended = Number((result.body as { ended?: unknown } | null)?.ended ?? 0);
        if (await loadSessions()) {
          showNotice(
            ended === 0
              ? 'No other session was signed in.'
              : ended === 1
                ? 'One other session has ended.'
                : `${ended} other sessions have ended.`,
          );
        }
      },
    ),
  );
  onSubmit('email-form', async ({ new_email, end_other_sessions }, form) => {
    await guarded(
      () => callApi('POST', '/email-change', { new_email, end_other_sessions: end_other_sessions === 'true' }, token),
      (result) => {
        form.reset();
        showNotice(
          String(
            (result.body as { detail?: unknown } | null)?.detail ?? 'Check the new address for a link to confirm.',
          ),
        );
      },
      {
        messages: { email_change_unavailable: 'This server cannot change email addresses.' },
        fields: { invalid_email: 'new_email' },
      },
      form,
    );
  });
}
