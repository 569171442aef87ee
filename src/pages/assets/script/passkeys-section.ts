import type { Wording } from './api-calls';
import type { BrowserDocument, PageElement } from './browser';
import type { PageKit } from './page-kit';
import type { AcceptedCredentials } from './passkey-ceremonies';
import type { SecurityPageParts } from './second-factor-section';

declare const document: BrowserDocument;

interface PasskeyRow {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  device_type: string;
}

/**
 * The security page's passkeys (shown where passkeys are configured): the list (GET /passkeys), adding one with a
 * name (the creation options, the browser's ceremony, POST /passkeys), renaming and removing one. Adding and
 * removing go through the page's "confirm it is you" prompt when the API answers `reauthentication_required`. After
 * a removal, a browser that supports the WebAuthn signals is told the passkey is gone, so its passkey manager stops
 * offering it.
 */
export async function passkeysSection(
  {
    busy,
    byId,
    callApi,
    clearMessages,
    hide,
    onClick,
    onSubmit,
    passkeys,
    problemOf,
    show,
    showNotice,
    textCell,
    timeCell,
  }: PageKit,
  { token, prompt, afterFailure, guarded }: SecurityPageParts,
): Promise<void> {
  const wording: Wording = {
    messages: {
      passkey_not_found: 'That passkey is not on your account any more.',
      last_sign_in_method:
        'This passkey is your last way to sign in. Add another passkey or set a password before removing it.',
      passkey_already_registered: 'This passkey is on an account already.',
      invalid_passkey_response: 'The server did not accept what the device sent. Try again.',
    },
  };
  let renaming: PasskeyRow | null = null;

  async function loadPasskeys(): Promise<boolean> {
    const result = await callApi('GET', '/passkeys', undefined, token);
    const list = (result.body as { passkeys?: unknown } | null)?.passkeys;
    if (result.status !== 200 || !Array.isArray(list)) {
      afterFailure(problemOf(result));
      return false;
    }
    byId('passkeys-body').replaceChildren(...(list as PasskeyRow[]).map(passkeyRow));
    byId('passkeys-table').hidden = list.length === 0;
    byId('passkeys-none').hidden = list.length !== 0;
    prompt.offerPasskey(list.length > 0);
    return true;
  }

  function button(text: string, label: string, className: string, work: () => Promise<void>): PageElement {
    const control = document.createElement('button');
    control.setAttribute('type', 'button');
    control.setAttribute('class', className);
    // Each button says which passkey it acts on, for those who reach it without the row around it.
    control.setAttribute('aria-label', label);
    control.textContent = text;
    control.addEventListener('click', () => void busy(control, work));
    return control;
  }

  function passkeyRow(passkey: PasskeyRow): PageElement {
    const row = document.createElement('tr');
    const actions = document.createElement('td');
    actions.setAttribute('class', 'actions');
    actions.append(
      button('Rename', `Rename the passkey ${passkey.name}`, 'secondary', async () => startRename(passkey)),
      button('Remove', `Remove the passkey ${passkey.name}`, 'danger', () => removeOne(passkey)),
    );
    row.append(
      textCell(passkey.name),
      textCell(passkey.device_type === 'synced' ? 'Synced' : 'This device only'),
      timeCell(passkey.created_at),
      passkey.last_used_at === null ? textCell('Never') : timeCell(passkey.last_used_at),
      actions,
    );
    return row;
  }

  function startRename(passkey: PasskeyRow): void {
    clearMessages();
    renaming = passkey;
    byId('passkey-rename-form').reset();
    byId('passkey-rename-form-name').value = passkey.name;
    show('passkey-rename', 'passkey-rename-form-name');
  }

  /** The account's credential ids and user handle, read from fresh creation options, for the browser's signals. */
  async function accepted(): Promise<AcceptedCredentials | null> {
    const result = await callApi('POST', '/passkeys/registration-options', undefined, token);
    return result.status === 200 ? passkeys.acceptedOf(result.body) : null;
  }

  async function removeOne(passkey: PasskeyRow): Promise<void> {
    clearMessages();
    // The API never lists credential ids; the creation options name them (as excludeCredentials), so they are read
    // before and after, and only where the browser can be told (each read starts a challenge the server drops).
    let before: AcceptedCredentials | null = null;
    await guarded(
      async () => {
        if (passkeys.canSignal) before = await accepted();
        return callApi('DELETE', `/passkeys/${encodeURIComponent(passkey.id)}`, undefined, token);
      },
      async () => {
        if (passkeys.canSignal) await passkeys.signalRemoved(before, await accepted());
        if (renaming?.id === passkey.id) hide('passkey-rename');
        if (await loadPasskeys()) showNotice(`The passkey “${passkey.name}” is removed.`);
      },
      wording,
    );
  }

  if (!(await loadPasskeys())) return;
  byId('passkey-add').hidden = !passkeys.supported;
  byId('passkeys-unsupported').hidden = passkeys.supported;

  onSubmit('passkey-add-form', ({ name }, form) =>
    guarded(
      () => callApi('POST', '/passkeys/registration-options', undefined, token),
      async (options) => {
        const outcome = await passkeys.create(options.body);
        if ('cancelled' in outcome) return;
        if ('problem' in outcome) return afterFailure(outcome.problem, form);
        await guarded(
          () => callApi('POST', '/passkeys', { name: name.trim(), response: outcome.response }, token),
          async () => {
            form.reset();
            if (await loadPasskeys()) showNotice(`The passkey “${name.trim()}” is added. You can sign in with it now.`);
          },
          wording,
          form,
        );
      },
      wording,
      form,
    ),
  );
  onSubmit('passkey-rename-form', ({ name }, form) => {
    const passkey = renaming;
    if (!passkey) return Promise.resolve();
    return guarded(
      () => callApi('PATCH', `/passkeys/${encodeURIComponent(passkey.id)}`, { name: name.trim() }, token),
      async () => {
        renaming = null;
        form.reset();
        hide('passkey-rename');
        if (await loadPasskeys()) showNotice(`The passkey is renamed “${name.trim()}”.`);
      },
      wording,
      form,
    );
  });
  onClick('passkey-rename-cancel', async () => {
    renaming = null;
    byId('passkey-rename-form').reset();
    clearMessages();
    hide('passkey-rename');
    byId('passkeys-title').focus();
  });
}
