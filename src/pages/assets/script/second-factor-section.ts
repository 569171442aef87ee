import type { ApiResult, Wording } from './api-calls';
import type { BrowserDocument, Btoa, PageElement } from './browser';
import type { AfterFailure, PageKit, Reauthentication } from './page-kit';

declare const document: BrowserDocument;
declare const btoa: Btoa;

/** What the security page lends its two-factor section. */
export interface SecurityPageParts {
  token: string;
  prompt: Reauthentication;
  afterFailure: AfterFailure;
  /** Sends a request, through the "confirm it is you" prompt when the API asks for a recent proof. */
  guarded: (
    send: () => Promise<ApiResult>,
    done: (result: ApiResult) => Promise<void> | void,
    wording?: Wording,
    form?: PageElement,
  ) => Promise<void>;
  /** Shows the sessions again; false (and the page says why) when they could not be read. */
  loadSessions: () => Promise<boolean>;
}

/**
 * The security page's two-factor sign-in: its state, the set-up (QR code, secret, first code), the recovery codes
 * and turning it off. Shows the state, then wires the controls.
 */
export async function secondFactorSection(
  { byId, callApi, clearMessages, hide, onClick, onSubmit, problemOf, proofOf, show, showNotice }: PageKit,
  { token, prompt, afterFailure, guarded, loadSessions }: SecurityPageParts,
): Promise<void> {
  /** The words of a refused code where a code of the app or a recovery code proves the change. */
  const proofWording: Wording = {
    messages: {
      invalid_second_factor_code:
        'That code is not right. Enter the code the app shows now, or an unused recovery code.',
      second_factor_not_enabled: 'Two-factor sign-in is not on.',
    },
    fields: { invalid_second_factor_code: 'code' },
  };

  /** Shows whether two-factor sign-in is on, and the controls that fit. */
  async function loadSecondFactor(): Promise<void> {
    const result = await callApi('GET', '/second-factor', undefined, token);
    const state = result.body as { enabled?: unknown; pending?: unknown; recovery_codes_left?: unknown } | null;
    if (result.status !== 200 || typeof state?.enabled !== 'boolean') return afterFailure(problemOf(result));
    const on = state.enabled;
    prompt.askCode(on);
    byId('second-factor-status').textContent = on
      ? 'Two-factor sign-in is on: signing in takes your password and a code from your authenticator app.'
      : state.pending === true
        ? 'Two-factor sign-in is off: its set-up was started but not finished.'
        : 'Two-factor sign-in is off.';
    byId('second-factor-off').hidden = on;
    byId('second-factor-on').hidden = !on;
    const left = Number(state.recovery_codes_left ?? 0);
    byId('recovery-codes-left').textContent =
      left === 0
        ? 'You have no recovery codes left. Make new ones, so that losing your phone does not lock you out.'
        : left === 1
          ? 'You have 1 recovery code left.'
          : `You have ${left} recovery codes left.`;
  }

  /** The recovery codes of an answer, shown this once; nothing else of the section shows until they are stored. */
  function showRecoveryCodes(result: ApiResult): void {
    const codes = (result.body as { recovery_codes?: unknown } | null)?.recovery_codes;
    const items = (Array.isArray(codes) ? codes : []).map((code) => {
      const item = document.createElement('li');
      item.textContent = String(code);
      return item;
    });
    byId('recovery-codes-list').replaceChildren(...items);
    hide('second-factor-on');
    hide('second-factor-off');
    show('recovery-codes', 'recovery-codes-title');
  }

  /** Forgets the set-up's secret and QR code: they are shown while the first code is awaited, no longer. */
  function endEnrolment(): void {
    byId('totp-confirm-form').reset();
    byId('second-factor-secret').textContent = '';
    const qr = byId('second-factor-qr');
    qr.removeAttribute('src');
    qr.hidden = true;
    hide('second-factor-enrol');
  }

  await loadSecondFactor();

  onClick('second-factor-setup-button', () =>
    guarded(
      () => callApi('POST', '/second-factor/totp', undefined, token),
      (result) => {
        const { secret, qr_code_svg } = (result.body ?? {}) as { secret?: unknown; qr_code_svg?: unknown };
        const qr = byId('second-factor-qr');
        // An image, not markup: the SVG our server drew goes in as a data: URL (the page's CSP allows data:
        // images and nothing else), so nothing in it can run or load.
        if (typeof qr_code_svg === 'string') {
          qr.setAttribute('src', `data:image/svg+xml;base64,${btoa(qr_code_svg)}`);
          qr.hidden = false;
        } else qr.hidden = true;
        // In groups of four, as apps accept it and people copy it.
        byId('second-factor-secret').textContent =
          typeof secret === 'string' ? secret.replace(/(.{4})(?=.)/g, '$1 ') : '';
        hide('second-factor-off');
        show('second-factor-enrol', 'second-factor-enrol-title');
      },
      { messages: { second_factor_already_enabled: 'Two-factor sign-in is on already.' } },
    ),
  );
  onSubmit('totp-confirm-form', ({ code, end_other_sessions }, form) =>
    guarded(
      () =>
        callApi(
          'POST',
          '/second-factor/totp/confirm',
          { code: code.replace(/\s/g, ''), end_other_sessions: end_other_sessions === 'true' },
          token,
        ),
      async (result) => {
        endEnrolment();
        prompt.askCode(true);
        // The other sessions may have ended with it.
        await loadSessions();
        byId('second-factor-status').textContent =
          'Two-factor sign-in is on: signing in takes your password and a code from your authenticator app.';
        showRecoveryCodes(result);
      },
      {
        messages: {
          invalid_second_factor_code:
            'That code is not right. Enter the code the app shows now, and check that the phone’s clock is right.',
          second_factor_already_enabled: 'Two-factor sign-in is on already.',
          second_factor_setup_replaced:
            'The set-up was started again elsewhere, so this code is for an old key. Start the set-up again.',
        },
        fields: { invalid_second_factor_code: 'code' },
      },
      form,
    ),
  );
  onClick('recovery-codes-done', async () => {
    byId('recovery-codes-list').replaceChildren();
    hide('recovery-codes');
    clearMessages();
    await loadSecondFactor();
    byId('second-factor-title').focus();
  });
  onSubmit('recovery-codes-form', ({ code }, form) =>
    guarded(
      () => callApi('POST', '/second-factor/recovery-codes', { code: proofOf(code) }, token),
      (result) => {
        form.reset();
        showRecoveryCodes(result);
      },
      proofWording,
      form,
    ),
  );
  onSubmit('second-factor-disable-form', ({ code }, form) =>
    guarded(
      () => callApi('POST', '/second-factor/disable', { code: proofOf(code) }, token),
      async () => {
        form.reset();
        await loadSecondFactor();
        showNotice('Two-factor sign-in is off. Signing in takes your password alone.');
      },
      proofWording,
      form,
    ),
  );
}
