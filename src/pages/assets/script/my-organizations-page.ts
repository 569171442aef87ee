import type { BrowserDocument, PageElement } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

/** An organization as GET /organizations and POST /organizations give it. */
interface OrganizationRow {
  id: string;
  name: string;
  role: string;
  created_at: string;
}

/**
 * The organizations page (`/my-organizations`): the caller's organizations (GET /organizations), each name a link
 * to its page (`/organization#id=<id>`), written as text, and the creation form (POST /organizations), which opens
 * the new organization's page.
 */
export async function myOrganizationsPage({
  api,
  byId,
  callApi,
  endSession,
  hide,
  leave,
  loadSession,
  onSubmit,
  problemOf,
  sessionEnded,
  show,
  showNotice,
  showProblem,
  textCell,
  timeCell,
}: PageKit): Promise<void> {
  const token = loadSession();
  if (!token) return show('signed-out');

  function organizationRow(organization: OrganizationRow): PageElement {
    const row = document.createElement('tr');
    const name = document.createElement('td');
    const link = document.createElement('a');
    link.setAttribute('href', `${api}/organization#id=${encodeURIComponent(organization.id)}`);
    link.textContent = organization.name;
    name.append(link);
    row.append(name, textCell(organization.role), timeCell(organization.created_at));
    return row;
  }

  const result = await callApi('GET', '/organizations', undefined, token);
  const organizations = (result.body as { organizations?: unknown } | null)?.organizations;
  if (result.status !== 200 || !Array.isArray(organizations)) {
    const problem = problemOf(result);
    if (sessionEnded(problem)) {
      endSession();
      show('signed-out');
      return showNotice('Your session has ended. Sign in again.');
    }
    return showProblem(problem);
  }
  byId('organizations-body').replaceChildren(...(organizations as OrganizationRow[]).map(organizationRow));
  byId('organizations-empty').hidden = organizations.length > 0;
  hide('signed-out');
  show('signed-in');

  onSubmit('create-organization-form', async ({ name }, form) => {
    const created = await callApi('POST', '/organizations', { name }, token);
    const organization = created.body as { id?: unknown; name?: unknown } | null;
    if (created.status === 201 && typeof organization?.id === 'string') {
      form.reset();
      return leave(
        `/organization#id=${encodeURIComponent(organization.id)}`,
        `${String(organization.name)} is created. You are its owner.`,
      );
    }
    const problem = problemOf(created, {
      messages: {
        organization_limit_reached: 'You belong to as many organizations as this server allows.',
        permission_denied: 'On this server, only administrators create organizations.',
      },
      fields: { organization_limit_reached: 'name' },
    });
    if (sessionEnded(problem)) {
      endSession();
      return leave('/login', 'Your session has ended. Sign in again.');
    }
    showProblem(problem, form);
  });
}
