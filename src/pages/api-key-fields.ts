import { checkbox, field } from './fields';
import { html, type SafeHtml } from './html';

/*
 * The API key parts of the pages other slices own (the security page, the password reset and change forms): shared,
 * like passkey-fields.ts, since a slice never imports another feature's folder. Every name, scope and key is written
 * in by the script as text; the markup holds only the empty places it fills.
 */

/** The API's bound on a key's name (POST /api-keys): 1 to 64 characters after trimming. */
export const API_KEY_NAME_MAX = 64;

/** The lifetimes the creation form offers (`apiKeyDefaultLifetimeDays`, `apiKeyMaxLifetimeDays`). */
export interface ApiKeyLifetimes {
  defaultDays: number;
  maxDays: number;
}

/** The id of the creation form; the script finds its inputs by this. */
const CREATE_ID = 'api-key-create-form';

/**
 * "Also revoke all my API keys", for the forms that set a new password (the reset, the change): keys are kept by
 * default, since a program using one is not the person who forgot the password; ticked, the form sends
 * `revoke_api_keys: true`.
 */
export function revokeApiKeysCheckbox(formId: string): SafeHtml {
  return checkbox({
    form: formId,
    name: 'revoke_api_keys',
    label: 'Also revoke all my API keys',
    hint: 'API keys keep working after a new password unless you revoke them. Tick this if one may have leaked.',
    checked: false,
  });
}

/**
 * The security page's API keys (GET /api-keys): a table the script writes as text (name, last four characters,
 * scopes, created, expiry, last use with its IP, creator, and a button that revokes the key), the creation form
 * (name, scopes as boxes the script fills from GET /api-keys/scopes, lifetime in days), the new key shown once in a
 * read-only field with a copy button, and the confirmation every revocation asks for. Creating needs a recent proof:
 * the page's "confirm it is you" prompt asks for it when the API says so.
 */
export function apiKeysSection(prefix: string, { defaultDays, maxDays }: ApiKeyLifetimes): SafeHtml {
  const daysId = `${CREATE_ID}-expires_in_days`;
  return html`<section id="api-keys" aria-labelledby="api-keys-title">
<h2 id="api-keys-title" tabindex="-1">API keys</h2>
<p>An API key lets a program of yours call the services that use this account, with only the permissions you give
it, until it expires. A key cannot sign in here, change your password or email address, or manage keys. Revoke a key
you no longer use, or one that may have leaked.</p>
<p id="api-keys-none" hidden>You have no API keys.</p>
<table id="api-keys-table" hidden>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th>
<th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Created by</th>
<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="api-keys-body"></tbody>
</table>
<div class="actions">
<button type="button" id="api-keys-revoke-all" class="danger" hidden>Revoke all API keys</button>
</div>
<section id="api-key-revoke-confirm" hidden aria-labelledby="api-key-revoke-confirm-title">
<h3 id="api-key-revoke-confirm-title" tabindex="-1"></h3>
<p id="api-key-revoke-confirm-text"></p>
<div class="actions">
<button type="button" id="api-key-revoke-confirm-button" class="danger"></button>
<button type="button" id="api-key-revoke-cancel" class="secondary">Cancel</button>
</div>
</section>
<section id="api-key-created" hidden aria-labelledby="api-key-created-title">
<h3 id="api-key-created-title" tabindex="-1">Your new API key</h3>
<p id="api-key-created-warning"><strong>Copy this key now: it will not be shown again.</strong> Keep it as you would a password. If you lose it,
create another and revoke this one.</p>
<div class="field">
<label for="api-key-created-value">The key</label>
<input id="api-key-created-value" class="key" type="text" readonly autocomplete="off" autocapitalize="none"
  spellcheck="false" aria-describedby="api-key-created-warning">
</div>
<div class="actions">
<button type="button" id="api-key-copy">Copy</button>
<button type="button" id="api-key-created-done" class="secondary">Done, hide the key</button>
</div>
</section>
<div id="api-key-create">
<h3 id="api-key-create-title">Create an API key</h3>
<p id="api-key-scopes-none" hidden>You hold no permission a key could carry, so you cannot create a key yet.</p>
<form id="${CREATE_ID}" method="post" action="${prefix}/api-keys" novalidate hidden>
${field({
  form: CREATE_ID,
  name: 'name',
  label: 'Name of the key',
  hint: 'So that you can tell your keys apart, for example “Nightly report” or “Build server”.',
  autocomplete: 'off',
  missing: 'Enter a name for the key',
  maxLength: API_KEY_NAME_MAX,
})}
<fieldset id="api-key-scopes" aria-describedby="api-key-scopes-hint">
<legend>Scopes</legend>
<p class="hint" id="api-key-scopes-hint">What the key may do: choose only what the program needs. You can give a key
only permissions you hold now, and if you lose one, every key loses it too.</p>
<p class="field-error" id="api-key-scope-0-error" hidden></p>
<div id="api-key-scopes-list"></div>
</fieldset>
<div class="field">
<label for="${daysId}">Lifetime in days</label>
<p class="hint" id="${daysId}-hint">From 1 to ${maxDays} days. The key stops working after that; create a new one
then.</p>
<p class="field-error" id="${daysId}-error" hidden></p>
<input id="${daysId}" name="expires_in_days" type="number" inputmode="numeric" autocomplete="off" min="1" max="${maxDays}" step="1"
  value="${defaultDays}" required aria-describedby="${daysId}-hint ${daysId}-error"
  data-missing="Enter how many days the key lives">
</div>
<button type="submit">Create the API key</button>
</form>
</div>
</section>`;
}
