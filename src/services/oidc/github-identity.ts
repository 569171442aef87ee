import type * as OpenIdClient from 'openid-client';
import { ProviderRefusedError, ProviderUnavailableError } from './provider-failure';

type OpenIdLibrary = typeof OpenIdClient;

interface GithubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/**
 * Who a GitHub access token belongs to: `/user`'s numeric id (the login can be renamed and taken by someone else),
 * and an address from `/user/emails` only with `verified: true`, the primary one first. `/user`'s `email` field is
 * the public profile address, which GitHub does not promise is verified: it is never read.
 */
export async function githubIdentity(
  openid: OpenIdLibrary,
  config: OpenIdClient.Configuration,
  apiBase: string,
  accessToken: string,
): Promise<{ subject: string; email: string | null }> {
  const user = (await read(openid, config, apiBase, '/user', accessToken)) as { id?: unknown } | null;
  const id = user?.id;
  if (!(typeof id === 'number' && Number.isSafeInteger(id) && id > 0)) {
    throw new ProviderRefusedError('GitHub /user: no numeric id');
  }
  const emails = await read(openid, config, apiBase, '/user/emails', accessToken);
  if (!Array.isArray(emails)) throw new ProviderRefusedError('GitHub /user/emails: not a list');
  const verified = (emails as GithubEmail[]).filter(
    (entry): entry is GithubEmail & { email: string } =>
      typeof entry?.email === 'string' && entry.email !== '' && entry.verified === true,
  );
  const chosen = verified.find((entry) => entry.primary === true) ?? verified[0];
  return { subject: String(id), email: chosen?.email ?? null };
}

async function read(
  openid: OpenIdLibrary,
  config: OpenIdClient.Configuration,
  apiBase: string,
  path: string,
  accessToken: string,
): Promise<unknown> {
  const headers = new Headers({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
  const url = new URL(`${apiBase.replace(/\/+$/, '')}${path}`);
  const response = await openid.fetchProtectedResource(config, accessToken, url, 'GET', undefined, headers);
  // GitHub answers an exhausted rate limit with 403 (or 429) and `x-ratelimit-remaining: 0`: a later try works.
  const limited =
    response.status === 429 || (response.status === 403 && response.headers.get('x-ratelimit-remaining') === '0');
  if (response.status >= 500 || limited) {
    await response.body?.cancel();
    throw new ProviderUnavailableError(`The sign-in provider is unavailable (GitHub ${path}): HTTP ${response.status}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ProviderRefusedError(`GitHub ${path}: HTTP ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new ProviderRefusedError(`GitHub ${path}: not JSON`);
  }
}
