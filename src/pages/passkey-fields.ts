import { field, form } from './fields';
import { html, type SafeHtml } from './html';

/*
 * The passkey parts of the pages other slices own (the sign-in page, the security page, the re-authentication
 * prompt): shared, like second-factor-fields.ts, since a slice never imports another feature's folder. Each part is
 * rendered only when passkeys are configured, and starts hidden: the script shows it once it knows the browser can
 * run a ceremony (`window.PublicKeyCredential`), so a browser without WebAuthn never sees a button that cannot work.
 */

/** The API's bound on a passkey's name (POST /passkeys, PATCH /passkeys/{id}). */
export const PASSKEY_NAME_MAX = 64;

/**
 * "Continue with a passkey", beside the password form; no username: the passkey names the account. Not "Sign in
 * with...": the password form's button keeps the name "Sign in" to itself.
 */
export function passkeySignIn(): SafeHtml {
  return html`<div id="passkey-login" class="actions passkey-login" hidden>
<button type="button" id="passkey-login-button" class="secondary">Continue with a passkey</button>
</div>`;
}

/** The second step's other answer, shown when the password step's challenge lists `passkey` among its methods. */
export function passkeySecondFactorButton(): SafeHtml {
  return html`<button type="button" id="use-passkey-button" class="secondary" hidden>Use a passkey</button>`;
}

/** The re-authentication prompt's other proof, shown when the account has a passkey. */
export function passkeyReauthenticationButton(): SafeHtml {
  return html`<p><button type="button" id="reauth-passkey" class="secondary" hidden>Use a passkey instead</button></p>`;
}

/**
 * The security page's passkeys (GET /passkeys): a table the script writes as text (name, kind, added, last used,
 * and buttons to rename and remove each), the form that adds one with a name (POST /passkeys/registration-options,
 * the ceremony, POST /passkeys), and the rename form (PATCH /passkeys/{id}). Adding and removing need a recent
 * proof: the page's "confirm it is you" prompt asks for it when the API says so.
 */
export function passkeysSection(prefix: string): SafeHtml {
  const addId = 'passkey-add-form';
  const renameId = 'passkey-rename-form';
  const nameField = (formId: string, label: string) =>
    field({
      form: formId,
      name: 'name',
      label,
      hint: 'So that you can tell your passkeys apart, for example “Work laptop” or “Phone”.',
      autocomplete: 'off',
      missing: 'Enter a name for the passkey',
      maxLength: PASSKEY_NAME_MAX,
    });
  return html`<section id="passkeys" aria-labelledby="passkeys-title">
<h2 id="passkeys-title" tabindex="-1">Passkeys</h2>
<p>A passkey signs you in with your device’s screen lock, fingerprint or face, with no password to type or steal. A
synced passkey lives in your password manager or cloud account and works on your other devices too; a device-bound
one stays on one device or security key.</p>
<p id="passkeys-unsupported" hidden>This browser cannot use passkeys. You can still remove or rename them here.</p>
<p id="passkeys-none" hidden>You have no passkeys yet.</p>
<table id="passkeys-table" hidden>
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Added</th><th scope="col">Last used</th>
<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="passkeys-body"></tbody>
</table>
<section id="passkey-rename" hidden aria-labelledby="passkey-rename-title">
<h3 id="passkey-rename-title" tabindex="-1">Rename a passkey</h3>
${form({ id: renameId, action: `${prefix}/passkeys`, submit: 'Save the name', fields: [nameField(renameId, 'New name')] })}
<p><button type="button" id="passkey-rename-cancel" class="secondary">Cancel</button></p>
</section>
<div id="passkey-add" hidden>
<h3 id="passkey-add-title">Add a passkey</h3>
${form({ id: addId, action: `${prefix}/passkeys`, submit: 'Add a passkey', fields: [nameField(addId, 'Name of the passkey')] })}
</div>
</section>`;
}
