import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import type { PageContext } from '../views/page-context';

/** The page of the signed-in person's organizations, below the prefix. */
export const ORGANIZATIONS_PAGE_PATH = '/my-organizations';

/** An organization's name is 1 to 100 characters (the core's rule, services/organizations). */
export const MAX_ORGANIZATION_NAME = 100;

/** What each organization page is when the server has organizations turned off (`organizations: false`). */
export function organizationsOff(prefix: string, title: string): string {
  const body = html`<p id="organizations-off">This server does not offer organizations.</p>
<p><a href="${prefix}/account">Back to your account</a></p>`;
  return layout({ prefix, title, body });
}

/**
 * GET {prefix}/my-organizations: the organizations of the person signed in (GET /organizations), each with their role
 * there and a link to its page (`/organization#id=<id>`), and the form that creates one (POST /organizations).
 * The script writes every name in as text: a name is whatever its creator typed.
 */
export function organizationsPage({ prefix, organizations }: PageContext): string {
  if (!organizations) return organizationsOff(prefix, 'Your organizations');
  const createId = 'create-organization-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> or <a href="${prefix}/register">create an account</a>.</p>
</section>
<div id="signed-in" hidden>
<p><a href="${prefix}/account">Back to your account</a></p>
<section aria-labelledby="organizations-title">
<h2 id="organizations-title" tabindex="-1">Organizations you belong to</h2>
<table id="organizations">
<thead><tr><th scope="col">Name</th><th scope="col">Your role</th><th scope="col">Created</th></tr></thead>
<tbody id="organizations-body"></tbody>
</table>
<p id="organizations-empty" hidden>You do not belong to any organization yet. Create one below, or open an
invitation someone sent you.</p>
</section>
<section aria-labelledby="create-title">
<h2 id="create-title">Create an organization</h2>
<p>You become its owner: you can invite people, give them roles, and hand the ownership to someone else.</p>
${form({
  id: createId,
  action: `${prefix}/organizations`,
  submit: 'Create the organization',
  fields: [
    field({
      form: createId,
      name: 'name',
      label: 'Name',
      hint: `Up to ${MAX_ORGANIZATION_NAME} characters. Every member sees it.`,
      autocomplete: 'organization',
      missing: 'Enter a name for the organization',
      maxLength: MAX_ORGANIZATION_NAME,
    }),
  ],
})}
</section>
</div>`;
  return layout({ prefix, title: 'Your organizations', page: 'organizations', body, wide: true });
}
