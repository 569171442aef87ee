import type { ApiResult, Problem, Wording } from './api-calls';
import type { BrowserDocument, BrowserLocation, PageElement } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;
declare const location: BrowserLocation;

/** GET /organizations/{id}: the organization, with the caller's role and permissions there. */
interface Organization {
  id: string;
  name: string;
  role: string;
  permissions: string[];
  created_at: string;
  member_count?: number;
}

interface Member {
  user_id: string;
  username: string;
  /** Only for holders of `gatehouse.members.manage`. */
  email?: string;
  role: string;
  joined_at: string;
}

interface Invitation {
  id: string;
  email: string;
  role: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * One organization's page (`/organization#id=<id>`): what the caller may see and do there, from the caller's
 * permissions in the organization's answer. Members (with `gatehouse.members.read`), their addresses and the actions
 * on them (with `gatehouse.members.manage`: change a role to one the caller may give, remove; owners only on owners),
 * handing the ownership over (owners), inviting (`gatehouse.members.invite`), the pending invitations with resend and
 * cancel (`gatehouse.members.manage`), renaming (`gatehouse.organization.update`), leaving, and deleting
 * (`gatehouse.organization.delete`). The API decides each action again; the page shows the answer in words. Transfer
 * and deletion open the "confirm it is you" prompt when the API asks for a recent proof, and are sent again after it.
 */
export async function organizationPage(kit: PageKit): Promise<void> {
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
    textCell,
    timeCell,
  } = kit;
  const token = loadSession();
  if (!token) return show('signed-out');
  // The id rides in the fragment: no server and no Referer sees it, and a reload keeps it.
  const id = new URLSearchParams(location.hash.replace(/^#/, '')).get('id') ?? '';
  if (!id) return show('missing');
  const base = `/organizations/${encodeURIComponent(id)}`;
  const READ = 'gatehouse.members.read';
  const INVITE = 'gatehouse.members.invite';
  const MANAGE = 'gatehouse.members.manage';
  const UPDATE = 'gatehouse.organization.update';
  const DELETE = 'gatehouse.organization.delete';

  /** The role template in force, as the markup lists it: role → its permissions. */
  const roles = new Map<string, string[]>();
  for (const item of byId('organization-roles').querySelectorAll('li')) {
    roles.set(item.dataset.role ?? '', (item.dataset.permissions ?? '').split(' ').filter(Boolean));
  }
  /** What the caller becomes on handing the ownership over: `admin`, else the template's strongest role below owner. */
  const formerOwnerRole =
    roles.has('admin') || roles.size < 2
      ? 'admin'
      : [...roles.entries()].filter(([name]) => name !== 'owner').sort((a, b) => b[1].length - a[1].length)[0][0];

  let organization: Organization | null = null;
  /** The caller's username (GET /me), to tell their own row; null when the host's serializer gives none. */
  let me: string | null = null;
  /** The member the ownership is about to go to, while the confirmation is open. */
  let transferTo: Member | null = null;

  const wording: Wording = {
    messages: {
      last_owner:
        'An organization keeps at least one owner, and this would leave it without one. Make another member an ' +
        'owner first, or delete the organization.',
      role_not_assignable: 'You cannot give or take that role, nor change your own.',
      permission_denied: 'Your role in this organization does not allow that.',
      member_not_found: 'That person is no longer a member.',
      invitation_not_found: 'That invitation is no longer pending.',
      already_member: 'That address belongs to a member already.',
      invitation_limit_reached: 'This organization has as many pending invitations as it may have.',
      member_limit_reached: 'This organization has as many members and pending invitations as it may have.',
      organization_not_found: 'There is no such organization, or you are not one of its members.',
    },
    fields: { already_member: 'email', invalid_email: 'email' },
  };

  const afterFailure = (problem: Problem, form?: PageElement): void => {
    if (sessionEnded(problem)) {
      endSession();
      return leave('/login', 'Your session has ended. Sign in again.');
    }
    if (problem.code === 'organization_not_found') {
      hide('signed-in');
      show('missing');
    }
    showProblem(problem, form);
  };
  const prompt = reauthentication(token, afterFailure, () => 'organization-name');

  /**
   * Sends an action. On `reauthentication_required` the prompt opens and the same request is sent again once the
   * proof is given; otherwise `done` takes the answer, or the problem is shown in words.
   */
  async function act(
    send: () => Promise<ApiResult>,
    done: (result: ApiResult) => unknown,
    form?: PageElement,
  ): Promise<void> {
    clearMessages();
    const result = await send();
    if (result.status >= 200 && result.status < 300) {
      await done(result);
      return;
    }
    const problem = problemOf(result, wording);
    if (problem.code === 'reauthentication_required') return prompt.ask(() => act(send, done, form));
    afterFailure(problem, form);
    // What was refused may have changed under the page (a member removed, an invitation answered): show it as it is.
    if (problem.code === 'member_not_found' || problem.code === 'invitation_not_found') await load();
  }
  const call = (method: string, path: string, payload?: object) => () =>
    callApi(method, `${base}${path}`, payload, token);

  const can = (permission: string) => organization?.permissions.includes(permission) ?? false;
  const isOwner = () => organization?.role === 'owner';
  /** A role the caller may give: its permissions within the caller's; `owner` by owners only. */
  function assignable(role: string): boolean {
    if (role === 'owner') return isOwner();
    const needed = roles.get(role);
    return needed !== undefined && needed.every(can);
  }
  /**
   * Fills a role list with the roles the caller may give, and `current` (shown even if the caller may not give it);
   * gives how many roles it offers.
   */
  function fillRoles(select: PageElement, current?: string): number {
    const offered = [...roles.keys()].filter((role) => role === current || assignable(role));
    const chosen = current ?? offered[offered.length - 1];
    select.replaceChildren(
      ...offered.map((role) => {
        const option = document.createElement('option');
        option.setAttribute('value', role);
        if (role === chosen) option.setAttribute('selected', '');
        option.textContent = role;
        return option;
      }),
    );
    select.value = chosen ?? '';
    return offered.length;
  }
  const named = (count: number, one: string, many: string) => (count === 1 ? `1 ${one}` : `${count} ${many}`);

  async function loadOrganization(): Promise<boolean> {
    const result = await callApi('GET', base, undefined, token);
    const answer = result.body as Organization | null;
    if (result.status !== 200 || typeof answer?.id !== 'string' || !Array.isArray(answer.permissions)) {
      afterFailure(problemOf(result, wording));
      return false;
    }
    organization = answer;
    byId('organization-name').textContent = answer.name;
    const members =
      typeof answer.member_count === 'number' ? ` It has ${named(answer.member_count, 'member', 'members')}.` : '';
    byId('organization-summary').textContent = `Your role here: ${answer.role}.${members}`;
    byId('rename').hidden = !can(UPDATE);
    byId('delete-button').hidden = !can(DELETE);
    byId('members-section').hidden = !can(READ);
    byId('members-email-column').hidden = !can(MANAGE);
    // Inviting takes a role the caller may give: a role template may leave an inviter none.
    byId('invite-section').hidden = !can(INVITE) || fillRoles(byId('invite-form-role')) === 0;
    byId('invitations-section').hidden = !can(MANAGE);
    return true;
  }

  function memberRow(member: Member): PageElement {
    const row = document.createElement('tr');
    const who = document.createElement('td');
    who.append(member.username);
    const own = me !== null && member.username === me;
    if (own) {
      const mark = document.createElement('strong');
      mark.setAttribute('class', 'tag');
      mark.textContent = 'You';
      who.append(' ', mark);
    }
    row.append(who);
    if (can(MANAGE)) row.append(textCell(member.email ?? ''));
    row.append(textCell(member.role), timeCell(member.joined_at));
    const actions = document.createElement('td');
    if (can(MANAGE) && !own && (member.role !== 'owner' || isOwner())) {
      const select = document.createElement('select');
      select.setAttribute('aria-label', `Role of ${member.username}`);
      fillRoles(select, member.role);
      const change = button(`Change the role of ${member.username}`, 'Change role', 'secondary', () =>
        act(call('PATCH', `/members/${encodeURIComponent(member.user_id)}`, { role: select.value }), () =>
          load(`${member.username} now has the role ${select.value}.`),
        ),
      );
      const remove = button(`Remove ${member.username}`, 'Remove', 'danger', () =>
        act(call('DELETE', `/members/${encodeURIComponent(member.user_id)}`), () =>
          load(`${member.username} is no longer a member.`),
        ),
      );
      actions.append(select, change, remove);
    }
    if (isOwner() && !own && member.role !== 'owner') {
      actions.append(
        button(`Make ${member.username} the owner`, 'Make owner', 'secondary', async () => {
          clearMessages();
          transferTo = member;
          byId('transfer-confirm-text').textContent =
            `${member.username} becomes an owner of ${organization?.name ?? 'this organization'}, and your role ` +
            `becomes ${formerOwnerRole}: you can no longer delete it or change its owners.`;
          hide('delete-confirm');
          show('transfer-confirm', 'transfer-confirm-title');
        }),
      );
    }
    row.append(actions);
    return row;
  }

  function invitationRow(invitation: Invitation): PageElement {
    const row = document.createElement('tr');
    const actions = document.createElement('td');
    actions.append(
      button(`Resend the invitation of ${invitation.email}`, 'Resend', 'secondary', () =>
        act(call('POST', `/invitations/${encodeURIComponent(invitation.id)}/resend`), () =>
          load(`A new link is on its way to ${invitation.email}; the earlier one no longer works.`),
        ),
      ),
      button(`Cancel the invitation of ${invitation.email}`, 'Cancel', 'danger', () =>
        act(call('DELETE', `/invitations/${encodeURIComponent(invitation.id)}`), () =>
          load(`The invitation of ${invitation.email} is cancelled.`),
        ),
      ),
    );
    row.append(
      textCell(invitation.email),
      textCell(invitation.role),
      textCell(invitation.invited_by ?? 'A deleted account'),
      timeCell(invitation.expires_at),
      actions,
    );
    return row;
  }

  function button(label: string, text: string, kind: string, work: () => Promise<void>): PageElement {
    const element = document.createElement('button');
    element.setAttribute('type', 'button');
    element.setAttribute('class', kind);
    element.setAttribute('aria-label', label);
    element.textContent = text;
    element.addEventListener('click', () => void busy(element, work));
    return element;
  }

  /** Reads a list answer (`members` or `invitations`); on failure says why and gives null. */
  async function listOf<T>(path: string, key: string): Promise<T[] | null> {
    const result = await callApi('GET', `${base}${path}`, undefined, token);
    const items = ((result.body ?? {}) as Record<string, unknown>)[key];
    if (result.status !== 200 || !Array.isArray(items)) {
      afterFailure(problemOf(result, wording));
      return null;
    }
    return items as T[];
  }

  /** The organization, its members and its invitations as they are now (what the caller may see), then `notice`. */
  async function load(notice?: string): Promise<boolean> {
    if (!(await loadOrganization())) return false;
    if (can(READ)) {
      const members = await listOf<Member>('/members', 'members');
      if (!members) return false;
      byId('members-body').replaceChildren(...members.map(memberRow));
      if (typeof organization?.member_count !== 'number') {
        const summary = `Your role here: ${organization?.role ?? ''}.`;
        byId('organization-summary').textContent = `${summary} It has ${named(members.length, 'member', 'members')}.`;
      }
    }
    if (can(MANAGE)) {
      const invitations = await listOf<Invitation>('/invitations', 'invitations');
      if (!invitations) return false;
      byId('invitations-body').replaceChildren(...invitations.map(invitationRow));
      byId('invitations-empty').hidden = invitations.length > 0;
    }
    if (notice) showNotice(notice);
    return true;
  }

  const whoAmI = await callApi('GET', '/me', undefined, token);
  const username = (whoAmI.body as { username?: unknown } | null)?.username;
  if (whoAmI.status === 200 && typeof username === 'string') me = username;
  if (!(await load())) return;
  hide('signed-out');
  show('signed-in');

  onSubmit('rename-form', ({ name }, form) =>
    act(
      call('PATCH', '', { name }),
      () => {
        form.reset();
        return load('The organization is renamed.');
      },
      form,
    ),
  );
  onSubmit('invite-form', ({ email }, form) => {
    const role = byId('invite-form-role').value;
    return act(
      call('POST', '/invitations', { email, role }),
      async () => {
        form.reset();
        await load(`An invitation to join as ${role} is on its way to ${email.trim()}.`);
      },
      form,
    );
  });
  onClick('leave-button', () =>
    act(call('POST', '/leave'), () =>
      leave('/my-organizations', `You left ${organization?.name ?? 'the organization'}.`),
    ),
  );
  onClick('delete-button', async () => {
    clearMessages();
    byId('delete-confirm-text').textContent =
      `${organization?.name ?? 'This organization'} is deleted with its memberships and pending invitations, and ` +
      'its members are told. This cannot be undone.';
    hide('transfer-confirm');
    show('delete-confirm', 'delete-confirm-title');
  });
  onClick('delete-cancel-button', async () => {
    hide('delete-confirm');
    byId('delete-button').focus();
  });
  onClick('delete-confirm-button', () => {
    const name = organization?.name ?? 'The organization';
    return act(call('DELETE', ''), () => leave('/my-organizations', `${name} is deleted.`));
  });
  onClick('transfer-cancel-button', async () => {
    transferTo = null;
    hide('transfer-confirm');
    byId('members-title').focus();
  });
  onClick('transfer-confirm-button', async () => {
    const member = transferTo;
    if (!member) return;
    await act(call('POST', '/transfer', { user_id: member.user_id }), async () => {
      transferTo = null;
      hide('transfer-confirm');
      await load(`${member.username} is now an owner. Your role is ${formerOwnerRole}.`);
    });
  });
  // With two-factor sign-in on, the prompt asks for the code with the password from the first time.
  await prompt.loadSecondFactor();
  // Where passkeys are configured (the prompt has the button), an account with one may confirm with it instead.
  if (document.getElementById('reauth-passkey')) {
    const passkeys = await callApi('GET', '/passkeys', undefined, token);
    const list = (passkeys.body as { passkeys?: unknown } | null)?.passkeys;
    prompt.offerPasskey(passkeys.status === 200 && Array.isArray(list) && list.length > 0);
  }
}
