import type { ApiResult, Problem, Wording } from './api-calls';
import type { PageElement } from './browser';
import type { AdminUser, AuditEventRow, adminRows, UserSummary } from './admin-rows';
import type { PageKit } from './page-kit';

/**
 * The administration page (`/admin`), through the admin API: find an account, see it and its audit events, and act
 * on it (disable, enable, end its sessions, verify, resend the link, delete, grant and revoke roles), each action
 * behind the "confirm it is you" prompt when the API asks for a recent proof.
 */
export async function adminPage(kit: PageKit, sections: { adminRows: typeof adminRows }): Promise<void> {
  const {
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
  } = kit;
  const { userRow, showUserDetails, eventRow } = sections.adminRows(kit);
  const counted = (count: number, one: string, many: string) => (count === 1 ? `1 ${one}` : `${count} ${many}`);

  const token = loadSession();
  if (!token) return show('signed-out');
  const USERS_PER_PAGE = 20;
  const EVENTS_PER_PAGE = 20;
  /** The search in force and the cursor of the page of accounts shown, so an action can show that page again. */
  let search = '';
  let pageCursor: string | null = null;
  let nextCursor: string | null = null;
  /** The account picked, as the API last described it. */
  let user: AdminUser | null = null;
  let eventsCursor: string | null = null;

  /**
   * A dead session goes to the sign-in page. Refused the list, the page shows the API's message and nothing else;
   * refused one action (a permission to read, not to change), it says so and the rest stays.
   */
  const afterFailure = (problem: Problem, form?: PageElement): void => {
    if (sessionEnded(problem)) {
      endSession();
      return leave('/login', 'Your session has ended. Sign in again.');
    }
    if (problem.code === 'permission_denied' && byId('signed-in').hidden) show('denied');
    showProblem(problem, form);
  };

  /** Reads a list answer (`users` or `events` and `next_cursor`); on failure says why and gives null. */
  function listOf<T>(result: ApiResult, key: string): { items: T[]; next: string | null } | null {
    const answer = (result.body ?? {}) as Record<string, unknown>;
    const items = answer[key];
    if (result.status !== 200 || !Array.isArray(items)) {
      afterFailure(problemOf(result));
      return null;
    }
    return { items: items as T[], next: typeof answer.next_cursor === 'string' ? answer.next_cursor : null };
  }

  async function loadUsers(cursor: string | null): Promise<boolean> {
    const query = new URLSearchParams({ limit: String(USERS_PER_PAGE) });
    if (search) query.set('prefix', search);
    if (cursor) query.set('cursor', cursor);
    const list = listOf<UserSummary>(
      await callApi('GET', `/admin/users?${query.toString()}`, undefined, token),
      'users',
    );
    if (!list) return false;
    pageCursor = cursor;
    nextCursor = list.next;
    byId('users-body').replaceChildren(...list.items.map((summary) => userRow(summary, pick)));
    byId('users-empty').hidden = list.items.length > 0;
    byId('users-next-button').hidden = nextCursor === null;
    return true;
  }

  async function pick(id: string): Promise<void> {
    clearMessages();
    hide('delete-confirm');
    if (!(await loadUser(id)) || !(await loadEvents(null))) return;
    show('user', 'user-title');
  }

  async function loadUser(id: string): Promise<boolean> {
    const result = await callApi('GET', `/admin/users/${encodeURIComponent(id)}`, undefined, token);
    const answer = result.body as AdminUser | null;
    if (result.status !== 200 || typeof answer?.id !== 'string') {
      afterFailure(problemOf(result));
      return false;
    }
    user = answer;
    byId('user-title').textContent = answer.username;
    showUserDetails(answer);
    byId('disable-button').hidden = answer.disabled;
    byId('enable-button').hidden = !answer.disabled;
    byId('verify-button').hidden = answer.verified;
    byId('resend-button').hidden = answer.verified;
    return true;
  }

  async function loadEvents(cursor: string | null): Promise<boolean> {
    if (!user) return false;
    const query = new URLSearchParams({ limit: String(EVENTS_PER_PAGE) });
    if (cursor) query.set('cursor', cursor);
    const path = `/admin/users/${encodeURIComponent(user.id)}/audit-events?${query.toString()}`;
    const list = listOf<AuditEventRow>(await callApi('GET', path, undefined, token), 'events');
    if (!list) return false;
    eventsCursor = list.next;
    byId('events-body').replaceChildren(...list.items.map(eventRow));
    byId('events-empty').hidden = list.items.length > 0;
    byId('events-next-button').hidden = eventsCursor === null;
    return true;
  }

  /** After a change: the page of accounts, the account and its events as they are now, then the notice. */
  async function refresh(notice: string): Promise<void> {
    if (!user) return;
    const id = user.id;
    if (!(await loadUsers(pageCursor)) || !(await loadUser(id)) || !(await loadEvents(null))) return;
    showNotice(notice);
  }

  /** Sends an action on the account picked; `done` takes the answer when the API took it. */
  async function act(
    method: string,
    path: string,
    done: (result: ApiResult, account: AdminUser) => Promise<void>,
    form?: PageElement,
  ): Promise<void> {
    const account = user;
    if (!account) return;
    clearMessages();
    const result = await callApi(method, `/admin/users/${encodeURIComponent(account.id)}${path}`, undefined, token);
    if (result.status >= 200 && result.status < 300) return done(result, account);
    const problem = problemOf(result, roleWording);
    if (problem.code !== 'reauthentication_required') return afterFailure(problem, form);
    // As on the security page: the prompt opens, and the same action is sent again once it is confirmed.
    prompt.ask(() => act(method, path, done, form));
  }
  const prompt = reauthentication(token, afterFailure, () => (user ? 'user-title' : 'users-title'));
  const roleWording: Wording = { fields: { unknown_role: 'role', invalid_role: 'role', last_administrator: 'role' } };

  if (!(await loadUsers(null))) return;
  show('signed-in');

  onSubmit('user-search-form', async ({ prefix }) => {
    search = prefix.trim();
    hide('user');
    user = null;
    await loadUsers(null);
  });
  onClick('users-next-button', async () => {
    if (nextCursor && (await loadUsers(nextCursor))) byId('users-title').focus();
  });
  onClick('events-next-button', async () => {
    if (eventsCursor && (await loadEvents(eventsCursor))) byId('events-title').focus();
  });
  onClick('disable-button', () =>
    act('POST', '/disable', (_, { username }) =>
      refresh(`${username} is disabled: every session has ended, and signing in is refused.`),
    ),
  );
  onClick('enable-button', () =>
    act('POST', '/enable', (_, { username }) => refresh(`${username} can sign in again.`)),
  );
  onClick('end-sessions-button', () =>
    act('POST', '/sessions/end', (result, { username }) => {
      const ended = Number((result.body as { ended?: unknown } | null)?.ended ?? 0);
      return refresh(`${counted(ended, 'session', 'sessions')} of ${username} ended.`);
    }),
  );
  onClick('verify-button', () =>
    act('POST', '/verify-email', (_, { username }) => refresh(`The address of ${username} is marked verified.`)),
  );
  onClick('resend-button', () =>
    act('POST', '/resend-verification', (result) =>
      refresh(String((result.body as { detail?: unknown } | null)?.detail ?? 'A new link is on its way.')),
    ),
  );
  onClick('delete-button', async () => {
    if (!user) return;
    clearMessages();
    byId('delete-confirm-text').textContent =
      `${user.username} (${user.email}) is deleted with its sessions and roles. This cannot be undone.`;
    show('delete-confirm', 'delete-confirm-title');
  });
  onClick('delete-cancel-button', async () => {
    hide('delete-confirm');
    byId('delete-button').focus();
  });
  onClick('delete-confirm-button', () =>
    act('DELETE', '', async (_, { username }) => {
      user = null;
      hide('delete-confirm');
      hide('user');
      if (await loadUsers(pageCursor)) showNotice(`${username} is deleted.`);
    }),
  );
  const roleForm = byId('role-form');
  onSubmit('role-form', ({ role }, form) =>
    act(
      'PUT',
      `/roles/${encodeURIComponent(role.trim())}`,
      (_, { username }) => {
        form.reset();
        return refresh(`${username} has the role ${role.trim()}.`);
      },
      form,
    ),
  );
  onClick('revoke-role-button', async () => {
    const input = byId('role-form-role');
    const role = input.value.trim();
    if (!role) {
      const missing = input.dataset.missing ?? 'Enter the name of a role';
      return showProblem({ code: 'input', message: missing, fields: { role: missing } }, roleForm);
    }
    await act(
      'DELETE',
      `/roles/${encodeURIComponent(role)}`,
      (_, { username }) => {
        roleForm.reset();
        return refresh(`${username} no longer has the role ${role}.`);
      },
      roleForm,
    );
  });
  // An administrator with two-factor sign-in on is asked for the code with the password from the first time.
  await prompt.loadSecondFactor();
}
