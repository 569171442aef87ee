import type { Wording } from './api-calls';
import type { BrowserDocument, BrowserLocation, PageElement } from './browser';
import type { PageKit } from './page-kit';
import type { SecurityPageParts } from './second-factor-section';

declare const document: BrowserDocument;
declare const location: BrowserLocation;

interface IdentityRow {
  id: string;
  provider: string;
  providerName: string;
  email: string | null;
  linkedAt: string;
  lastUsedAt: string | null;
  configured: boolean;
}

/**
 * The security page's linked providers (shown where OpenID providers are configured): the list (GET
 * /oidc/identities), Unlink (DELETE /oidc/identities/{id}), and "Link <name>" for each configured provider not linked
 * yet: POST /oidc/{id}/link, whose answer sets the cookie that binds the flow to this browser, then off to the
 * provider, which comes back to the return page. Both go through the page's "confirm it is you" prompt when the API
 * answers `reauthentication_required`.
 */
export async function oidcIdentitiesSection(
  { busy, byId, callApi, clearMessages, noteProvider, problemOf, showNotice, textCell, timeCell }: PageKit,
  { token, afterFailure, guarded }: SecurityPageParts,
): Promise<void> {
  const wording: Wording = {
    messages: {
      identity_not_found: 'That provider is not linked to your account any more.',
      unknown_provider: 'That provider is not configured any more.',
    },
  };
  const linkButtons = [...byId('oidc-link-buttons').querySelectorAll('button[data-provider]')];

  /** One identity of the answer, whichever case the API spells its fields in (the service's view is camelCase). */
  function identityOf(raw: Record<string, unknown>): IdentityRow {
    const text = (...values: unknown[]) => values.find((value) => typeof value === 'string') as string | undefined;
    const provider = text(raw.provider) ?? '';
    return {
      id: text(raw.id) ?? '',
      provider,
      providerName: text(raw.provider_name, raw.providerName) ?? provider,
      email: text(raw.email) ?? null,
      linkedAt: text(raw.linked_at, raw.linkedAt) ?? '',
      lastUsedAt: text(raw.last_used_at, raw.lastUsedAt) ?? null,
      configured: raw.configured !== false,
    };
  }

  async function loadIdentities(): Promise<boolean> {
    const result = await callApi('GET', '/oidc/identities', undefined, token);
    const list = (result.body as { identities?: unknown } | null)?.identities;
    if (result.status !== 200 || !Array.isArray(list)) {
      afterFailure(problemOf(result, wording));
      return false;
    }
    const identities = (list as Record<string, unknown>[]).map(identityOf);
    byId('oidc-identities-body').replaceChildren(...identities.map(identityRow));
    byId('oidc-identities-table').hidden = identities.length === 0;
    byId('oidc-identities-none').hidden = identities.length !== 0;
    const linked = new Set(identities.filter((identity) => identity.configured).map((identity) => identity.provider));
    for (const button of linkButtons) button.hidden = linked.has(button.dataset.provider ?? '');
    return true;
  }

  function identityRow(identity: IdentityRow): PageElement {
    const row = document.createElement('tr');
    const provider = textCell(identity.providerName);
    if (!identity.configured) {
      // Such an identity signs nobody in, and does not count as a way in; it can still be unlinked.
      const mark = document.createElement('span');
      mark.setAttribute('class', 'tag');
      mark.textContent = '(no longer configured)';
      provider.append(' ', mark);
    }
    const action = document.createElement('td');
    const button = document.createElement('button');
    button.setAttribute('type', 'button');
    button.setAttribute('class', 'danger');
    // Each button says which identity it unlinks, for those who reach it without the row around it.
    button.setAttribute(
      'aria-label',
      `Unlink ${identity.providerName}${identity.email === null ? '' : ` (${identity.email})`}`,
    );
    button.textContent = 'Unlink';
    button.addEventListener('click', () => void busy(button, () => unlink(identity)));
    action.append(button);
    row.append(
      provider,
      textCell(identity.email ?? 'None given'),
      identity.linkedAt ? timeCell(identity.linkedAt) : textCell('Unknown'),
      identity.lastUsedAt === null ? textCell('Never') : timeCell(identity.lastUsedAt),
      action,
    );
    return row;
  }

  async function unlink(identity: IdentityRow): Promise<void> {
    clearMessages();
    // `last_sign_in_method` keeps the API's own words: it says what would be left.
    await guarded(
      () => callApi('DELETE', `/oidc/identities/${encodeURIComponent(identity.id)}`, undefined, token),
      async () => {
        if (await loadIdentities()) showNotice(`${identity.providerName} is unlinked: it no longer signs you in.`);
      },
      wording,
    );
  }

  async function link(button: PageElement): Promise<void> {
    clearMessages();
    const provider = button.dataset.provider ?? '';
    const name = button.dataset.providerName ?? provider;
    // No `returnTo`: the provider comes back to the default return page, which finishes the link.
    await guarded(
      () => callApi('POST', `/oidc/${encodeURIComponent(provider)}/link`, {}, token, true),
      (result) => {
        const answer = (result.body ?? {}) as { authorizationUrl?: unknown; authorization_url?: unknown };
        // Providers are https only: anything else is no provider's page, and never a `javascript:` address.
        const url = [answer.authorizationUrl, answer.authorization_url].find((value) => typeof value === 'string');
        if (typeof url !== 'string' || !/^https:\/\//.test(url)) {
          return afterFailure({
            code: 'oidc',
            message: 'Something went wrong on the server. Try again later.',
            fields: {},
          });
        }
        noteProvider(name);
        location.assign(url);
      },
      wording,
    );
  }

  if (!(await loadIdentities())) return;
  for (const button of linkButtons) {
    button.addEventListener('click', () => void busy(button, () => link(button)));
  }
}
