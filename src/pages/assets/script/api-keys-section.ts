import type { Wording } from './api-calls';
import type { BrowserDocument, BrowserNavigator, BrowserWindow, PageElement } from './browser';
import type { PageKit } from './page-kit';
import type { SecurityPageParts } from './second-factor-section';

declare const document: BrowserDocument;
declare const navigator: BrowserNavigator;
declare const window: BrowserWindow;

/** One key as GET /api-keys lists it: never the key itself. */
interface ApiKeyRow {
  id: string;
  name: string;
  last_four: string;
  scopes: string[];
  created_at: string;
  expires_at: string;
  expired: boolean;
  last_used_at: string | null;
  last_used_ip: string | null;
  created_by: { id: string; username: string } | null;
}

/**
 * The security page's API keys: the list (GET /api-keys), the creation (scopes offered from GET /api-keys/scopes,
 * POST /api-keys through the "confirm it is you" prompt when the API answers `reauthentication_required`), and the
 * revocation of one key (DELETE /api-keys/{id}) or all (POST /api-keys/revoke-all), each confirmed first.
 *
 * The new key is shown once, in a read-only field with a Copy button. It lives in that field and nowhere else: not
 * in web storage, not in a variable of this script. It is wiped when the person says they are done, creates another
 * key, revokes that one, or leaves the page (`pagehide`, so a page kept by the back button does not hold it).
 */
export async function apiKeysSection(
  {
    busy,
    byId,
    callApi,
    clearMessages,
    hide,
    onClick,
    onSubmit,
    problemOf,
    show,
    showNotice,
    showProblem,
    textCell,
    timeCell,
    timeOf,
  }: PageKit,
  { token, afterFailure, guarded }: SecurityPageParts,
): Promise<void> {
  // The API's own words (`detail`) say what is wrong; these only put them beside the input they are about.
  const wording: Wording = {
    fields: { api_key_name_taken: 'name', invalid_scope: 'scopes', invalid_api_key_expiry: 'expires_in_days' },
  };
  /** The revocation the confirmation step is about; null while it is closed. */
  let confirming: { send: () => Promise<void>; back: string } | null = null;

  function forgetShownKey(): void {
    const field = byId('api-key-created-value');
    field.value = '';
    field.removeAttribute('data-key-id');
    hide('api-key-created');
  }
  window.addEventListener('pagehide', forgetShownKey);

  async function loadKeys(): Promise<boolean> {
    const result = await callApi('GET', '/api-keys', undefined, token);
    const list = (result.body as { api_keys?: unknown } | null)?.api_keys;
    if (result.status !== 200 || !Array.isArray(list)) {
      afterFailure(problemOf(result));
      return false;
    }
    byId('api-keys-body').replaceChildren(...(list as ApiKeyRow[]).map(keyRow));
    byId('api-keys-table').hidden = list.length === 0;
    byId('api-keys-none').hidden = list.length !== 0;
    byId('api-keys-revoke-all').hidden = list.length === 0;
    return true;
  }

  /** The permissions the person may give a key now, as boxes to tick (none ticked: a key gets what is chosen). */
  async function loadScopes(): Promise<boolean> {
    const result = await callApi('GET', '/api-keys/scopes', undefined, token);
    const scopes = (result.body as { scopes?: unknown } | null)?.scopes;
    if (result.status !== 200 || !Array.isArray(scopes)) {
      afterFailure(problemOf(result));
      return false;
    }
    byId('api-key-scopes-list').replaceChildren(...(scopes as string[]).map(scopeBox));
    byId('api-key-create-form').hidden = scopes.length === 0;
    byId('api-key-scopes-none').hidden = scopes.length !== 0;
    return true;
  }

  function scopeBox(scope: string, index: number): PageElement {
    const box = document.createElement('div');
    box.setAttribute('class', 'field check');
    const input = document.createElement('input');
    // The first box's id names the fieldset's error slot (`api-key-scope-0-error`), where a refused scope is told.
    input.setAttribute('id', `api-key-scope-${index}`);
    input.setAttribute('type', 'checkbox');
    input.setAttribute('name', 'scopes');
    input.setAttribute('value', scope);
    const label = document.createElement('label');
    label.setAttribute('for', `api-key-scope-${index}`);
    label.textContent = scope;
    box.append(input, label);
    return box;
  }

  function chosenScopes(): string[] {
    return [...byId('api-key-scopes-list').querySelectorAll('input')]
      .filter((input) => input.checked)
      .map((input) => input.value);
  }

  function cellOf(...parts: (PageElement | string)[]): PageElement {
    const cell = document.createElement('td');
    cell.append(...parts);
    return cell;
  }

  function keyRow(key: ApiKeyRow): PageElement {
    const row = document.createElement('tr');
    const lastFour = document.createElement('code');
    lastFour.textContent = `…${key.last_four}`;
    lastFour.setAttribute('aria-label', `ends with ${key.last_four}`);
    const expires = cellOf(timeOf(key.expires_at));
    if (key.expired) {
      const mark = document.createElement('strong');
      mark.setAttribute('class', 'tag expired');
      mark.textContent = 'Expired';
      expires.append(' ', mark);
    }
    const lastUsed =
      key.last_used_at === null
        ? textCell('Never')
        : cellOf(timeOf(key.last_used_at), key.last_used_ip ? ` from ${key.last_used_ip}` : '');
    const revoke = document.createElement('button');
    revoke.setAttribute('type', 'button');
    revoke.setAttribute('class', 'danger');
    // Each button says which key it revokes, for those who reach it without the row around it.
    revoke.setAttribute('aria-label', `Revoke the API key ${key.name}`);
    revoke.textContent = 'Revoke';
    revoke.addEventListener('click', () => void busy(revoke, async () => askRevokeOne(key)));
    row.append(
      textCell(key.name),
      cellOf(lastFour),
      textCell(key.scopes.join(', ')),
      timeCell(key.created_at),
      expires,
      lastUsed,
      textCell(key.created_by?.username ?? 'A deleted account'),
      cellOf(revoke),
    );
    return row;
  }

  function confirm(title: string, text: string, button: string, back: string, send: () => Promise<void>): void {
    clearMessages();
    confirming = { send, back };
    byId('api-key-revoke-confirm-title').textContent = title;
    byId('api-key-revoke-confirm-text').textContent = text;
    byId('api-key-revoke-confirm-button').textContent = button;
    show('api-key-revoke-confirm', 'api-key-revoke-confirm-title');
  }

  function closeConfirmation(): void {
    confirming = null;
    hide('api-key-revoke-confirm');
  }

  function askRevokeOne(key: ApiKeyRow): void {
    confirm(
      `Revoke the API key “${key.name}”?`,
      'Programs using it are refused from the next request on. This cannot be undone.',
      'Revoke the key',
      'api-keys-title',
      () =>
        guarded(
          () => callApi('DELETE', `/api-keys/${encodeURIComponent(key.id)}`, undefined, token),
          async () => {
            closeConfirmation();
            if (byId('api-key-created-value').dataset.keyId === key.id) forgetShownKey();
            if (await loadKeys()) showNotice(`The API key “${key.name}” is revoked.`);
          },
          wording,
        ),
    );
  }

  if (!(await loadKeys())) return;

  onClick('api-keys-revoke-all', async () =>
    confirm(
      'Revoke all your API keys?',
      'Every program using one of your keys is refused from the next request on. This cannot be undone.',
      'Revoke all keys',
      'api-keys-revoke-all',
      () =>
        guarded(
          () => callApi('POST', '/api-keys/revoke-all', {}, token),
          async (result) => {
            closeConfirmation();
            forgetShownKey();
            const revoked = Number((result.body as { revoked?: unknown } | null)?.revoked ?? 0);
            if (await loadKeys()) {
              showNotice(
                revoked === 0
                  ? 'You had no API key to revoke.'
                  : revoked === 1
                    ? 'Your API key is revoked.'
                    : `Your ${revoked} API keys are revoked.`,
              );
            }
          },
          wording,
        ),
    ),
  );
  onClick('api-key-revoke-confirm-button', async () => {
    await confirming?.send();
  });
  onClick('api-key-revoke-cancel', async () => {
    const back = confirming?.back ?? 'api-keys-title';
    closeConfirmation();
    clearMessages();
    byId(back).focus();
  });

  // The keys can be revoked even when the scopes could not be read; only the creation waits for them.
  if (!(await loadScopes())) return;
  onSubmit('api-key-create-form', async ({ name, expires_in_days }, form) => {
    // A key shown before goes as soon as another is asked for: one key on screen at most, and never for long.
    forgetShownKey();
    const scopes = chosenScopes();
    const days = Number(expires_in_days);
    const maxDays = Number(byId('api-key-create-form-expires_in_days').getAttribute('max'));
    const fields: Record<string, string> = {};
    if (scopes.length === 0) fields.scopes = 'Choose at least one scope';
    if (!Number.isInteger(days) || days < 1 || days > maxDays) {
      fields.expires_in_days = `Enter a whole number of days from 1 to ${maxDays}`;
    }
    const names = Object.keys(fields);
    if (names.length > 0) {
      const message = names.length === 1 ? fields[names[0]] : 'Some fields need another look.';
      return showProblem({ code: 'input', message, fields }, form);
    }
    await guarded(
      () => callApi('POST', '/api-keys', { name: name.trim(), scopes, expires_in_days: days }, token),
      async (result) => {
        const created = result.body as { key?: unknown; api_key?: { id?: unknown; name?: unknown } } | null;
        form.reset();
        const field = byId('api-key-created-value');
        field.value = typeof created?.key === 'string' ? created.key : '';
        field.setAttribute('data-key-id', String(created?.api_key?.id ?? ''));
        byId('api-key-created').querySelector('label')!.textContent =
          `The key “${String(created?.api_key?.name ?? name.trim())}”`;
        await loadKeys();
        show('api-key-created', 'api-key-created-title');
      },
      wording,
      form,
    );
  });

  onClick('api-key-copy', async () => {
    const field = byId('api-key-created-value');
    if (!field.value) return;
    let copied = false;
    try {
      if (navigator.clipboard) {
        await navigator.clipboard.writeText(field.value);
        copied = true;
      }
    } catch {
      // Refused (no permission, the page not focused): the older way below may still work.
    }
    if (!copied) {
      field.select();
      copied = document.execCommand('copy');
    }
    showNotice(
      copied
        ? 'The key is copied. Paste it where your program reads it, then choose “Done, hide the key”.'
        : 'The key could not be copied here: select it in the field and copy it yourself.',
    );
  });
  onClick('api-key-created-done', async () => {
    forgetShownKey();
    clearMessages();
    byId('api-keys-title').focus();
  });
}
