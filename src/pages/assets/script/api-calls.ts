/** One answer of the account API, as the pages read it. */
export interface ApiResult {
  /** 0 when the server could not be reached. */
  status: number;
  body: unknown;
  retryAfter: number | null;
}

export interface Problem {
  code: string;
  message: string;
  /** Messages by field name, shown beside the inputs. */
  fields: Record<string, string>;
}

/** How a page words the codes it expects, and which input an account error belongs to. */
export interface Wording {
  messages?: Record<string, string>;
  fields?: Record<string, string>;
}

export interface ApiCalls {
  /**
   * `withCookies` lets the answer set a cookie: only for the start of a provider link, whose answer sets the cookie
   * that binds the flow to this browser. Every other request goes without cookies either way.
   */
  callApi: (
    method: string,
    path: string,
    payload?: object,
    token?: string | null,
    withCookies?: boolean,
  ) => Promise<ApiResult>;
  /** A failed answer in words: the API's own message unless the page says it better, or the HTTP situation. */
  problemOf: (result: ApiResult, wording?: Wording) => Problem;
  /** Whether the problem is the session itself: signed out, ended, or never there. */
  sessionEnded: (problem: Problem) => boolean;
}

/** Requests to the account API below `api`, the prefix, and their failures in words. */
export function apiCalls(api: string): ApiCalls {
  async function callApi(
    method: string,
    path: string,
    payload?: object,
    token?: string | null,
    withCookies = false,
  ): Promise<ApiResult> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (payload) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const response = await fetch(api + path, {
        method,
        headers,
        body: payload ? JSON.stringify(payload) : undefined,
        credentials: withCookies ? 'same-origin' : 'omit',
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

  const sessionEnded = (problem: Problem) =>
    problem.code === 'not_authenticated' || problem.code === 'invalid_session_token';

  return { callApi, problemOf, sessionEnded };
}
