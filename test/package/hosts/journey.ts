import { resolveAccountService } from 'gatehouse';
import type { CapturingSender } from './capturing-sender';

const ACCOUNT = { username: 'ada', email: 'ada@example.com', password: 'violet staircase 42 umbrella' };

export interface Answer {
  status: number;
  body: unknown;
}

/** What the host's client saw at each step; the test asserts on it. */
export interface JourneyReport {
  /** The account the journey registered, password included, so that the test can look for it in every answer. */
  account: typeof ACCOUNT;
  register: Answer;
  verify: Answer;
  login: Answer;
  withoutToken: Answer;
  beforeGrant: Answer;
  afterGrant: Answer;
}

async function call(url: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text, so that the test shows what came instead.
  }
  return { status: response.status, body };
}

/**
 * A new user's way to a guarded host route, over real HTTP: register, follow the emailed token, log in, then the
 * route without a token, before the user holds the permission and after (granted through the service, as a host's
 * admin code would).
 */
export async function runJourney(baseUrl: string, sender: CapturingSender): Promise<JourneyReport> {
  const accounts = resolveAccountService();
  const register = await call(`${baseUrl}/auth/register`, { method: 'POST', body: ACCOUNT });
  await accounts.drain(); // the verification email is sent by the delivery worker, after the answer
  const verify = await call(`${baseUrl}/auth/verify-email`, {
    method: 'POST',
    body: { token: sender.verificationToken(ACCOUNT.email) },
  });
  const login = await call(`${baseUrl}/auth/login`, {
    method: 'POST',
    body: { username: ACCOUNT.username, password: ACCOUNT.password },
  });
  const token = (login.body as { access_token?: string }).access_token ?? '';
  await accounts.access.createRole('auditor');
  await accounts.access.createPermission('reports.read');
  await accounts.access.grantPermission('auditor', 'reports.read');
  const withoutToken = await call(`${baseUrl}/api/reports`);
  const beforeGrant = await call(`${baseUrl}/api/reports`, { token });
  await accounts.access.grantRole(ACCOUNT.username, 'auditor');
  const afterGrant = await call(`${baseUrl}/api/reports`, { token });
  return { account: ACCOUNT, register, verify, login, withoutToken, beforeGrant, afterGrant };
}
