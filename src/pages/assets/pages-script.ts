/*
 * The pages' one script. It runs in the browser, not in Node: `PAGES_SCRIPT` is the compiled `pagesScript` function's
 * own source (Function.prototype.toString) wrapped in a call, so the function must use nothing from this module
 * but the types below, which are the few browser APIs it touches (the project compiles without the DOM library).
 *
 * It reads no HTML from anywhere: every text it shows goes in through `textContent`, and the pages' CSP enforces
 * that with Trusted Types.
 */

interface PageElement {
  hidden: boolean;
  textContent: string | null;
  readonly name: string;
  readonly type: string;
  value: string;
  /** Of a checkbox. */
  checked: boolean;
  readonly dataset: Record<string, string | undefined>;
  focus(): void;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  addEventListener(type: string, listener: (event: { preventDefault(): void }) => void): void;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  append(...children: (PageElement | string)[]): void;
  replaceChildren(...children: (PageElement | string)[]): void;
  reset(): void;
}

declare const document: {
  readonly body: PageElement;
  getElementById(id: string): PageElement | null;
  createElement(tag: string): PageElement;
};
declare const location: { readonly search: string; readonly pathname: string; assign(url: string): void };
/** Base64 of a string of Latin-1 characters (the SVG of the QR code is ASCII). */
declare function btoa(data: string): string;
declare const history: { replaceState(state: unknown, unused: string, url: string): void };
declare const sessionStorage: {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
};

export function pagesScript(): void {
  interface ApiResult {
    /** 0 when the server could not be reached. */
    status: number;
    body: unknown;
    retryAfter: number | null;
  }
  interface Problem {
    code: string;
    message: string;
    /** Messages by field name, shown beside the inputs. */
    fields: Record<string, string>;
  }
  /** How a page words the codes it expects, and which input an account error belongs to. */
  interface Wording {
    messages?: Record<string, string>;
    fields?: Record<string, string>;
  }
  type Values = Record<string, string>;

  const api = document.body.dataset.api ?? '';
  const page = document.body.dataset.page ?? '';
  const SESSION_KEY = `gatehouse.session ${api}`;
  const NOTICE_KEY = `gatehouse.notice ${api}`;

  // The emailed link's token is read once and at once taken out of the address bar and of this history entry, so
  // it is not left on screen, in the history or in a bookmark. It stays in memory until the person confirms.
  const linkToken = new URLSearchParams(location.search).get('token') ?? '';
  if (location.search) history.replaceState(null, '', location.pathname);

  const errorBox = byId('error');
  const noticeBox = byId('notice');

  function byId(id: string): PageElement {
    const element = document.getElementById(id);
    if (!element) throw new Error(`missing #${id}`);
    return element;
  }

  // --- The session of this tab --------------------------------------------------------------------------------
  // sessionStorage: the token lives as long as the tab, is never sent by the browser on its own (so no request
  // forgery), and never reaches a URL. Storage can be unavailable (privacy settings): then nobody stays signed in.
  function storage(action: (store: typeof sessionStorage) => string | null | void): string | null {
    try {
      return action(sessionStorage) ?? null;
    } catch {
      return null;
    }
  }
  const loadSession = () => storage((store) => store.getItem(SESSION_KEY));
  const saveSession = (token: string) => storage((store) => store.setItem(SESSION_KEY, token));
  const endSession = () => storage((store) => store.removeItem(SESSION_KEY));

  /** Goes to another page, which shows `notice` once. */
  function leave(path: string, notice: string): void {
    storage((store) => store.setItem(NOTICE_KEY, notice));
    location.assign(api + path);
  }

  // --- The API --------------------------------------------------------------------------------------------------
  async function callApi(method: string, path: string, payload?: object, token?: string | null): Promise<ApiResult> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (payload) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const response = await fetch(api + path, {
        method,
        headers,
        body: payload ? JSON.stringify(payload) : undefined,
        credentials: 'omit',
        redirect: 'error',
        referrerPolicy: 'no-referrer',
      });
      const body: unknown = await response.json().catch(() => null);
      const retryAfter = Number(response.headers.get('Retry-After'));
      return { status: response.status, body, retryAfter: retryAfter > 0 ? retryAfter : null };
    } catch {
      return { status: 0, body: null, retryAfter: null };
    }
  }

  function waitText(seconds: number | null): string {
    if (seconds === null) return 'a moment';
    if (seconds < 90) return seconds === 1 ? '1 second' : `${seconds} seconds`;
    const minutes = Math.ceil(seconds / 60);
    return minutes < 90 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
  }

  /** A failed answer in words: the API's own message unless the page says it better, or the HTTP situation. */
  function problemOf(result: ApiResult, wording: Wording = {}): Problem {
    const fields: Record<string, string> = {};
    const detail = (result.body as { detail?: unknown } | null)?.detail;
    if (result.status === 0) {
      const message = 'The server could not be reached. Check your connection and try again.';
      return { code: 'network', fields, message };
    }
    if (typeof detail === 'string') {
      return { code: 'not_authenticated', fields, message: 'You are not signed in, or your session has ended.' };
    }
    const error = (detail ?? {}) as { code?: unknown; detail?: unknown; errors?: unknown };
    const code = typeof error.code === 'string' ? error.code : '';
    const text = typeof error.detail === 'string' ? error.detail : '';
    if (result.status === 429) {
      return { code, fields, message: `Too many attempts. Wait ${waitText(result.retryAfter)}, then try again.` };
    }
    if (result.status === 503) {
      return { code, fields, message: `The service is busy. Try again in ${waitText(result.retryAfter)}.` };
    }
    if (result.status >= 500 || !code) {
      return { code, fields, message: 'Something went wrong on the server. Try again later.' };
    }
    if (code === 'validation_error' && Array.isArray(error.errors)) {
      for (const item of error.errors as { field?: unknown; message?: unknown }[]) {
        if (typeof item.field === 'string' && typeof item.message === 'string') fields[item.field] = item.message;
      }
    }
    const message = wording.messages?.[code] ?? text;
    const field = wording.fields?.[code];
    if (field) fields[field] = message;
    return { code, fields, message };
  }

  // --- Showing things -----------------------------------------------------------------------------------------
  function clearMessages(): void {
    errorBox.hidden = true;
    errorBox.replaceChildren();
    noticeBox.hidden = true;
    noticeBox.replaceChildren();
    for (const slot of document.body.querySelectorAll('.field-error')) {
      slot.hidden = true;
      slot.textContent = '';
    }
    for (const input of document.body.querySelectorAll('input[aria-invalid]')) input.removeAttribute('aria-invalid');
  }

  function showNotice(text: string): void {
    noticeBox.textContent = text;
    noticeBox.hidden = false;
    noticeBox.focus();
  }

  /**
   * The alert holds the message (and the list of field problems); each field's own message stands above it. The
   * focus goes to the first field to correct, whose label and message a screen reader reads, else to the alert.
   */
  function showProblem(problem: Problem, form?: PageElement): void {
    clearMessages();
    const summary = document.createElement('p');
    summary.textContent = problem.message;
    errorBox.append(summary);
    let first: PageElement | null = null;
    const list = document.createElement('ul');
    for (const [name, message] of Object.entries(problem.fields)) {
      const input = form?.querySelector(`input[name="${name}"]`);
      const slot = input ? form?.querySelector(`#${input.getAttribute('id')}-error`) : null;
      if (!input || !slot) continue;
      slot.textContent = message;
      slot.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      first = first ?? input;
      if (message !== problem.message) {
        const item = document.createElement('li');
        item.textContent = message;
        list.append(item);
      }
    }
    if (list.querySelector('li')) errorBox.append(list);
    errorBox.hidden = false;
    (first ?? errorBox).focus();
  }

  /** An instant of the API as a `<time>`, in the reader's own locale and time zone. */
  function timeOf(iso: string): PageElement {
    const time = document.createElement('time');
    time.setAttribute('datetime', iso);
    const date = new Date(iso);
    time.textContent = Number.isNaN(date.getTime())
      ? iso
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    return time;
  }

  function timeCell(iso: string): PageElement {
    const cell = document.createElement('td');
    cell.append(timeOf(iso));
    return cell;
  }

  function textCell(text: string): PageElement {
    const cell = document.createElement('td');
    cell.textContent = text;
    return cell;
  }

  /** Swaps what the page shows and moves the focus to the new part, so keyboard and screen reader users follow. */
  function show(id: string, focusId?: string): void {
    byId(id).hidden = false;
    if (focusId) byId(focusId).focus();
  }
  function hide(id: string): void {
    byId(id).hidden = true;
  }

  /**
   * Runs `work` with the control marked busy, so a double click sends one request. The control is not disabled:
   * a disabled button loses the keyboard focus.
   */
  async function busy(control: PageElement, work: () => Promise<void>): Promise<void> {
    if (control.getAttribute('aria-busy') === 'true') return;
    control.setAttribute('aria-busy', 'true');
    try {
      await work();
    } finally {
      control.removeAttribute('aria-busy');
    }
  }

  /** Checks the form in the browser first (missing fields, the second password), then hands its values over. */
  function onSubmit(formId: string, send: (values: Values, form: PageElement) => Promise<void>): void {
    const form = byId(formId);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(form, async () => {
        const inputs = [...form.querySelectorAll('input')];
        const values: Values = {};
        // A checkbox's value is "on" whether ticked or not: what counts is whether it is ticked.
        for (const input of inputs)
          values[input.name] = input.type === 'checkbox' ? String(input.checked) : input.value;
        const fields: Record<string, string> = {};
        for (const input of inputs) {
          const other = input.dataset.sameAs;
          // A box to tick, and a field that may stay empty (a search), are never missing.
          if (input.type === 'checkbox' || input.getAttribute('required') === null) continue;
          if (input.value === '') fields[input.name] = input.dataset.missing ?? 'Fill in this field';
          else if (other && values[other] !== '' && input.value !== values[other]) {
            fields[input.name] = input.dataset.mismatch ?? 'The values are not the same';
          }
        }
        const names = Object.keys(fields);
        if (names.length > 0) {
          const message = names.length === 1 ? fields[names[0]] : 'Some fields need another look.';
          showProblem({ code: 'input', message, fields }, form);
          return;
        }
        clearMessages();
        await send(values, form);
      });
    });
  }

  function onClick(buttonId: string, work: (button: PageElement) => Promise<void>): void {
    const button = byId(buttonId);
    button.addEventListener('click', () => void busy(button, () => work(button)));
  }

  const sessionEnded = (problem: Problem) =>
    problem.code === 'not_authenticated' || problem.code === 'invalid_session_token';

  // --- The pages ------------------------------------------------------------------------------------------------
  function registerPage(): void {
    onSubmit('register-form', async (values, form) => {
      const { username, email, password } = values;
      const result = await callApi('POST', '/register', { username, email, password });
      if (result.status === 201) {
        form.reset();
        hide('register-form');
        show('register-done', 'register-done-title');
        return;
      }
      showProblem(
        problemOf(result, {
          fields: { invalid_username: 'username', invalid_email: 'email', weak_password: 'password' },
        }),
        form,
      );
    });
  }

  function loginPage(): void {
    /**
     * The challenge the password step gave an account with two-factor sign-in: kept in this page's memory only, so
     * it dies with the page, and sent with the code that answers it.
     */
    let challenge = '';
    const passwordForm = byId('login-form');

    /** Back to the password, after a challenge that died (expired, too many answers) or at the person's wish. */
    function toPasswordStep(problem?: Problem): void {
      challenge = '';
      byId('second-factor-form').reset();
      byId('recovery-form').reset();
      hide('second-factor');
      show('login-form');
      show('login-aside');
      if (problem) return showProblem(problem, passwordForm);
      clearMessages();
      byId('login-form-password').focus();
    }

    /** Which way the second step is answered: the app's code, or a recovery code. */
    function answerWith(recovery: boolean): void {
      byId('second-factor-form').hidden = recovery;
      byId('use-recovery-button').hidden = recovery;
      byId('recovery-form').hidden = !recovery;
      byId('use-totp-button').hidden = !recovery;
      clearMessages();
      byId(recovery ? 'recovery-form-recovery_code' : 'second-factor-form-code').focus();
    }

    onSubmit('login-form', async ({ username, password }, form) => {
      const result = await callApi('POST', '/login', { username, password });
      const answer = (result.body ?? {}) as {
        access_token?: unknown;
        second_factor_required?: unknown;
        challenge_token?: unknown;
      };
      if (result.status === 200 && typeof answer.access_token === 'string') {
        saveSession(answer.access_token);
        location.assign(`${api}/account`);
        return;
      }
      if (
        result.status === 200 &&
        answer.second_factor_required === true &&
        typeof answer.challenge_token === 'string'
      ) {
        challenge = answer.challenge_token;
        // The password has done its work: the challenge stands for it now, so it does not stay in the page.
        byId('login-form-password').value = '';
        hide('login-form');
        hide('login-aside');
        show('second-factor');
        answerWith(false);
        return;
      }
      showProblem(
        problemOf(result, {
          messages: {
            invalid_credentials: 'The username or the password is wrong.',
            unverified_user:
              'Your email address is not confirmed yet. Open the link we emailed you, or ask for a new link below.',
          },
        }),
        form,
      );
    });

    async function answerChallenge(proof: Values, form: PageElement, field: string): Promise<void> {
      const result = await callApi('POST', '/login/second-factor', { challenge_token: challenge, ...proof });
      const token = (result.body as { access_token?: unknown } | null)?.access_token;
      if (result.status === 200 && typeof token === 'string') {
        saveSession(token);
        location.assign(`${api}/account`);
        return;
      }
      const problem = problemOf(result, {
        messages: {
          invalid_second_factor_code:
            field === 'code'
              ? 'That code is not right. Enter the code the app shows now.'
              : 'That recovery code is not right, or it was used already.',
          invalid_login_challenge: 'This sign-in ran out of time or of tries. Enter your password again to start over.',
        },
        fields: { invalid_second_factor_code: field },
      });
      if (problem.code === 'invalid_login_challenge') return toPasswordStep(problem);
      showProblem(problem, form);
    }
    // Apps show the code as "123 456"; what counts is the digits.
    onSubmit('second-factor-form', ({ code }, form) =>
      answerChallenge({ code: code.replace(/\s/g, '') }, form, 'code'),
    );
    onSubmit('recovery-form', ({ recovery_code }, form) =>
      answerChallenge({ recovery_code: recovery_code.trim() }, form, 'recovery_code'),
    );
    onClick('use-recovery-button', async () => answerWith(true));
    onClick('use-totp-button', async () => answerWith(false));
    onClick('second-factor-cancel', async () => toPasswordStep());
  }

  function verifyEmailPage(): void {
    // The server renders the confirmation, naming the account, only for a live token; otherwise the resend form.
    if (document.getElementById('verify-button'))
      onClick('verify-button', async () => {
        const result = await callApi('POST', '/verify-email', { token: linkToken });
        if (result.status === 200) {
          hide('verify-confirm');
          show('verify-done', 'verify-done-title');
          return;
        }
        const problem = problemOf(result, {
          messages: {
            invalid_verification_token:
              'This link does not work: it was already used, has expired, or was replaced by a newer one. ' +
              'Ask for a new link below.',
          },
        });
        // Only a refused token is final; after a network failure, a limit or an overload the button works again.
        if (problem.code === 'invalid_verification_token' || problem.code === 'validation_error') {
          hide('verify-confirm');
          show('resend');
        }
        showProblem(problem);
      });
    onSubmit('resend-form', async ({ email }, form) => {
      const result = await callApi('POST', '/resend-verification', { email });
      if (result.status === 200) {
        form.reset();
        showNotice(String((result.body as { detail?: unknown }).detail ?? 'Sent.'));
        return;
      }
      showProblem(problemOf(result), form);
    });
  }

  function passwordResetPage(): void {
    if (linkToken) {
      hide('reset-request');
      show('reset-confirm');
    }
    onSubmit('reset-confirm-form', async ({ new_password }, form) => {
      const result = await callApi('POST', '/password-reset/confirm', { token: linkToken, new_password });
      if (result.status === 200) {
        form.reset();
        hide('reset-confirm');
        show('reset-done', 'reset-done-title');
        return;
      }
      const problem = problemOf(result, {
        messages: {
          invalid_password_reset_token:
            'This link does not work: it was already used, has expired, or was replaced by a newer one. ' +
            'Ask for a new link below.',
        },
        fields: { weak_password: 'new_password' },
      });
      if (problem.code === 'invalid_password_reset_token') {
        hide('reset-confirm');
        show('reset-request');
      }
      showProblem(problem, form);
    });
    onSubmit('reset-request-form', async ({ email }, form) => {
      const result = await callApi('POST', '/password-reset/request', { email });
      if (result.status === 200) {
        form.reset();
        showNotice(String((result.body as { detail?: unknown }).detail ?? 'Sent.'));
        return;
      }
      showProblem(problemOf(result), form);
    });
  }

  async function accountPage(): Promise<void> {
    const token = loadSession();
    const signedOut = (notice?: string) => {
      endSession();
      hide('signed-in');
      show('signed-out');
      if (notice) showNotice(notice);
    };
    if (!token) return signedOut();
    const me = await callApi('GET', '/me', undefined, token);
    if (me.status !== 200) {
      const problem = problemOf(me);
      if (sessionEnded(problem)) return signedOut('Your session has ended. Sign in again.');
      return showProblem(problem);
    }
    showDetails(me.body);
    show('signed-in');

    /** After an action that ends this session, or a request that found it already ended. */
    const afterFailure = (problem: Problem, form?: PageElement) => {
      if (sessionEnded(problem)) return leave('/login', 'Your session has ended. Sign in again.');
      showProblem(problem, form);
    };
    onClick('logout-button', async () => {
      const result = await callApi('POST', '/logout', undefined, token);
      if (result.status !== 200 && !sessionEnded(problemOf(result))) return showProblem(problemOf(result));
      endSession();
      leave('/login', 'You are logged out.');
    });
    onClick('logout-all-button', async () => {
      const result = await callApi('POST', '/logout-all', undefined, token);
      if (result.status !== 200) return afterFailure(problemOf(result));
      endSession();
      leave('/login', 'You are logged out on every device.');
    });
    onSubmit('change-form', async ({ old_password, new_password }, form) => {
      const result = await callApi('POST', '/password/change', { old_password, new_password }, token);
      if (result.status === 200) {
        endSession();
        return leave('/login', 'Your password has been changed and every session ended. Sign in with the new one.');
      }
      afterFailure(
        problemOf(result, {
          messages: { invalid_credentials: 'The current password is wrong.' },
          fields: { invalid_credentials: 'old_password', weak_password: 'new_password' },
        }),
        form,
      );
    });
    onSubmit('delete-form', async ({ password }, form) => {
      const result = await callApi('DELETE', '/account', { password }, token);
      if (result.status === 200) {
        endSession();
        return leave('/register', 'Your account has been deleted.');
      }
      afterFailure(
        problemOf(result, {
          messages: { invalid_credentials: 'The password is wrong.' },
          fields: { invalid_credentials: 'password' },
        }),
        form,
      );
    });
  }

  interface SessionRow {
    id: string;
    current: boolean;
    created_at: string;
    last_used_at: string;
    ip_address: string | null;
    user_agent: string | null;
    browser: { name?: string; version?: string } | null;
    os: { name?: string; version?: string } | null;
    device: string | null;
  }

  /** A code of the app ("123 456" counts as its digits) or a recovery code, as typed. */
  const proofOf = (typed: string) =>
    /^\d{6}$/.test(typed.replace(/\s/g, '')) ? typed.replace(/\s/g, '') : typed.trim();

  interface Reauthentication {
    /** Opens the prompt; `retry` (the request refused for want of a recent proof) is sent again once it is given. */
    ask(retry: () => Promise<void>): void;
    /** With two-factor sign-in on, confirming it is you takes a code after the password: the field shows, required. */
    askCode(on: boolean): void;
    /** Asks for the code from the start when two-factor sign-in is on (GET /second-factor); as it was if unknown. */
    loadSecondFactor(): Promise<void>;
  }

  /**
   * "Confirm it is you" (`reauthenticationPrompt` in the markup), one for every page that has it (security,
   * administration): the password, and a code while two-factor sign-in is on, to POST /reauthenticate, then the
   * refused request again. Told `second_factor_required` (turned on elsewhere since), it asks for the code from then
   * on. `afterFailure` is the page's own handling of a refusal; `cancelFocus` names what takes the focus on Cancel.
   */
  function reauthentication(
    token: string,
    afterFailure: (problem: Problem, form?: PageElement) => void,
    cancelFocus: () => string,
  ): Reauthentication {
    /** What to do again once the proof is given: the action the API refused for want of it. */
    let pending: (() => Promise<void>) | null = null;
    const askCode = (on: boolean) => {
      byId('reauth-code').hidden = !on;
      const input = byId('reauth-form-code');
      if (on) input.setAttribute('required', '');
      else input.removeAttribute('required');
    };
    onSubmit('reauth-form', async ({ password, code }, form) => {
      const asksCode = !byId('reauth-code').hidden;
      const body = asksCode ? { password, code: proofOf(code) } : { password };
      const result = await callApi('POST', '/reauthenticate', body, token);
      if (result.status !== 200) {
        const problem = problemOf(result, {
          messages: {
            invalid_credentials: 'The password is wrong.',
            second_factor_required: 'Two-factor sign-in is on: enter a code from your authenticator app too.',
            invalid_second_factor_code:
              'That code is not right. Enter the code the app shows now, or an unused recovery code.',
          },
          fields: {
            invalid_credentials: 'password',
            second_factor_required: 'code',
            invalid_second_factor_code: 'code',
          },
        });
        if (problem.code === 'second_factor_required') askCode(true);
        return afterFailure(problem, form);
      }
      form.reset();
      hide('reauth');
      const next = pending;
      pending = null;
      if (next) await next();
    });
    onClick('reauth-cancel', async () => {
      pending = null;
      byId('reauth-form').reset();
      clearMessages();
      hide('reauth');
      byId(cancelFocus()).focus();
    });
    return {
      ask(retry) {
        pending = retry;
        clearMessages();
        show('reauth', 'reauth-form-password');
      },
      askCode,
      async loadSecondFactor() {
        const result = await callApi('GET', '/second-factor', undefined, token);
        const enabled = (result.body as { enabled?: unknown } | null)?.enabled;
        if (result.status === 200 && typeof enabled === 'boolean') askCode(enabled);
      },
    };
  }

  async function securityPage(): Promise<void> {
    const token = loadSession();
    if (!token) {
      hide('signed-in');
      return show('signed-out');
    }
    const afterFailure = (problem: Problem, form?: PageElement) => {
      if (sessionEnded(problem)) {
        endSession();
        return leave('/login', 'Your session has ended. Sign in again.');
      }
      showProblem(problem, form);
    };
    const prompt = reauthentication(token, afterFailure, () => 'sessions-title');

    /**
     * Sends a request that may need a recent password. On `reauthentication_required` the password form opens and
     * the same request is sent again once it is confirmed; otherwise `done` takes the answer.
     */
    async function guarded(
      send: () => Promise<ApiResult>,
      done: (result: ApiResult) => Promise<void> | void,
      wording?: Wording,
      form?: PageElement,
    ): Promise<void> {
      const result = await send();
      if (result.status >= 200 && result.status < 300) return done(result);
      const problem = problemOf(result, wording);
      if (problem.code !== 'reauthentication_required') return afterFailure(problem, form);
      prompt.ask(() => guarded(send, done, wording, form));
    }

    async function loadSessions(): Promise<boolean> {
      const result = await callApi('GET', '/sessions', undefined, token);
      const sessions = (result.body as { sessions?: unknown } | null)?.sessions;
      if (result.status !== 200 || !Array.isArray(sessions)) {
        const problem = problemOf(result);
        if (sessionEnded(problem)) {
          endSession();
          hide('signed-in');
          show('signed-out');
          showNotice('Your session has ended. Sign in again.');
        } else showProblem(problem);
        return false;
      }
      byId('sessions-body').replaceChildren(...(sessions as SessionRow[]).map(sessionRow));
      return true;
    }

    /** "Firefox 128 on Windows 10 (mobile)"; the raw User-Agent when it could not be read; or that it is unknown. */
    function deviceText(session: SessionRow): string {
      const named = (part: { name?: string; version?: string } | null) =>
        part?.name ? [part.name, part.version].filter(Boolean).join(' ') : '';
      const browser = named(session.browser);
      const os = named(session.os);
      const device = session.device && session.device !== 'desktop' ? ` (${session.device})` : '';
      if (browser || os) return `${browser || 'Unknown browser'}${os ? ` on ${os}` : ''}${device}`;
      return session.user_agent ?? 'Unknown browser';
    }

    function sessionRow(session: SessionRow): PageElement {
      const row = document.createElement('tr');
      const what = document.createElement('td');
      what.append(deviceText(session));
      if (session.current) {
        const mark = document.createElement('strong');
        mark.setAttribute('class', 'tag');
        mark.textContent = 'This device';
        what.append(' ', mark);
      }
      const ip = document.createElement('td');
      ip.textContent = session.ip_address ?? 'Unknown';
      const action = document.createElement('td');
      const button = document.createElement('button');
      button.setAttribute('type', 'button');
      button.setAttribute('class', 'danger');
      button.setAttribute('data-session', session.id);
      // Each button says which session it ends, for those who reach it without the row around it.
      button.setAttribute(
        'aria-label',
        session.current ? 'End this session (log out here)' : `End the session of ${deviceText(session)}`,
      );
      button.textContent = 'End';
      button.addEventListener('click', () => void busy(button, () => endOne(session)));
      action.append(button);
      row.append(what, ip, timeCell(session.last_used_at), timeCell(session.created_at), action);
      return row;
    }

    async function endOne(session: SessionRow): Promise<void> {
      clearMessages();
      await guarded(
        () => callApi('DELETE', `/sessions/${encodeURIComponent(session.id)}`, undefined, token),
        async () => {
          if (session.current) {
            endSession();
            return leave('/login', 'You are logged out.');
          }
          if (await loadSessions()) showNotice('The session has ended.');
        },
      );
    }

    // --- Two-factor sign-in ---------------------------------------------------------------------------------------
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

    if (!(await loadSessions())) return;
    hide('signed-out');
    show('signed-in');
    await loadSecondFactor();

    onClick('end-others-button', () =>
      guarded(
        () => callApi('POST', '/sessions/end-others', {}, token),
        async (result) => {
          const ended = Number((result.body as { ended?: unknown } | null)?.ended ?? 0);
          if (await loadSessions()) {
            showNotice(
              ended === 0
                ? 'No other session was signed in.'
                : ended === 1
                  ? 'One other session has ended.'
                  : `${ended} other sessions have ended.`,
            );
          }
        },
      ),
    );
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
    onSubmit('email-form', async ({ new_email, end_other_sessions }, form) => {
      await guarded(
        () => callApi('POST', '/email-change', { new_email, end_other_sessions: end_other_sessions === 'true' }, token),
        (result) => {
          form.reset();
          showNotice(
            String(
              (result.body as { detail?: unknown } | null)?.detail ?? 'Check the new address for a link to confirm.',
            ),
          );
        },
        {
          messages: { email_change_unavailable: 'This server cannot change email addresses.' },
          fields: { invalid_email: 'new_email' },
        },
        form,
      );
    });
  }

  // --- The administration page ----------------------------------------------------------------------------------
  interface UserSummary {
    id: string;
    username: string;
    email: string;
    verified: boolean;
    disabled: boolean;
    created_at: string;
  }
  interface AdminUser extends UserSummary {
    disabled_at: string | null;
    last_sign_in_at: string | null;
    roles: string[];
    permissions: string[];
    second_factor: boolean;
    session_count: number;
  }
  interface AuditEventRow {
    at: string;
    type: string;
    outcome: string;
    actor: { type: string; id: string | null };
    subject_id: string | null;
    ip: string | null;
    details: Record<string, unknown> | null;
  }

  const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
  const counted = (count: number, one: string, many: string) => (count === 1 ? `1 ${one}` : `${count} ${many}`);

  async function adminPage(): Promise<void> {
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
      byId('users-body').replaceChildren(...list.items.map(userRow));
      byId('users-empty').hidden = list.items.length > 0;
      byId('users-next-button').hidden = nextCursor === null;
      return true;
    }

    function userRow(summary: UserSummary): PageElement {
      const row = document.createElement('tr');
      const name = document.createElement('td');
      const button = document.createElement('button');
      button.setAttribute('type', 'button');
      button.setAttribute('class', 'link');
      button.textContent = summary.username;
      button.addEventListener('click', () => void busy(button, () => pick(summary.id)));
      name.append(button);
      row.append(
        name,
        textCell(summary.email),
        textCell(yesNo(summary.verified)),
        textCell(yesNo(summary.disabled)),
        timeCell(summary.created_at),
      );
      return row;
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
      const none = (names: string[]) => (names.length > 0 ? names.join(', ') : 'None');
      const details: [string, string | PageElement][] = [
        ['Email address', answer.email],
        ['Verified', yesNo(answer.verified)],
        ['Disabled', answer.disabled_at ? timeOf(answer.disabled_at) : 'No'],
        ['Two-factor sign-in', answer.second_factor ? 'On' : 'Off'],
        ['Sessions', String(answer.session_count)],
        ['Roles', none(answer.roles)],
        ['Permissions', none(answer.permissions)],
        ['Created', timeOf(answer.created_at)],
        ['Last sign-in', answer.last_sign_in_at ? timeOf(answer.last_sign_in_at) : 'Never'],
        ['Id', answer.id],
      ];
      const list = byId('user-details');
      list.replaceChildren();
      for (const [label, value] of details) {
        const term = document.createElement('dt');
        term.textContent = label;
        const description = document.createElement('dd');
        description.append(value);
        list.append(term, description);
      }
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

    /** Who acted, in words; ids of other accounts are shown as they are, for the CLI or the API to look up. */
    function actorText(event: AuditEventRow): string {
      const { type, id } = event.actor;
      if (type === 'user') return id === event.subject_id ? 'The account itself' : `Account ${id ?? ''}`;
      if (type === 'admin')
        return id === event.subject_id ? 'The account itself, as administrator' : `Administrator ${id ?? ''}`;
      if (type === 'operator') return 'The operator (command line)';
      if (type === 'anonymous') return 'Nobody signed in';
      return type;
    }

    function eventRow(event: AuditEventRow): PageElement {
      const row = document.createElement('tr');
      const details = Object.entries(event.details ?? {})
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(', ');
      row.append(
        timeCell(event.at),
        textCell(event.type),
        textCell(event.outcome),
        textCell(actorText(event)),
        textCell(event.ip ?? ''),
        textCell(details),
      );
      return row;
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

  function emailChangeConfirmPage(): void {
    // The server renders the button, naming the account and the address, only for a live token.
    if (!document.getElementById('email-change-button')) return;
    onClick('email-change-button', async () => {
      const result = await callApi('POST', '/email-change/confirm', { token: linkToken });
      if (result.status === 200) {
        hide('email-change-confirm');
        show('email-change-done', 'email-change-done-title');
        return;
      }
      const problem = problemOf(result, {
        messages: {
          invalid_email_change_token:
            'This link does not work: it was already used, has expired, was replaced by a newer request, or the ' +
            'address now belongs to another account.',
        },
      });
      // Only a refused token is final; after a network failure, a limit or an overload the button works again.
      if (problem.code === 'invalid_email_change_token' || problem.code === 'validation_error') {
        hide('email-change-confirm');
        show('email-change-failed');
      }
      showProblem(problem);
    });
  }

  /** GET /me's answer as a list of terms, whatever the host's serializer puts in it. */
  function showDetails(user: unknown): void {
    const list = byId('me');
    list.replaceChildren();
    for (const [key, value] of Object.entries((user ?? {}) as Record<string, unknown>)) {
      const term = document.createElement('dt');
      const words = key.replace(/_/g, ' ');
      term.textContent = words.charAt(0).toUpperCase() + words.slice(1);
      const description = document.createElement('dd');
      description.textContent =
        typeof value === 'boolean' ? (value ? 'Yes' : 'No') : typeof value === 'string' ? value : JSON.stringify(value);
      list.append(term, description);
    }
  }

  const notice = storage((store) => store.getItem(NOTICE_KEY));
  if (notice) {
    storage((store) => store.removeItem(NOTICE_KEY));
    showNotice(notice);
  }
  const pages: Record<string, () => void | Promise<void>> = {
    register: registerPage,
    login: loginPage,
    'verify-email': verifyEmailPage,
    'password-reset': passwordResetPage,
    account: accountPage,
    security: securityPage,
    'email-change-confirm': emailChangeConfirmPage,
    admin: adminPage,
  };
  void pages[page]?.();
}

/** The served script: the function above, called once the page is parsed (the tag is `defer`). */
export const PAGES_SCRIPT = `'use strict';\n(${pagesScript.toString()})();\n`;
