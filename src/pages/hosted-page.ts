import { Container } from 'typedi';
import { resolveAccountService } from '../di/resolve';
import { ACCOUNT_OPTIONS } from '../di/tokens';
import { isStoreUnavailable } from '../errors/store-unavailable-error';
import { resolveAccountOptions } from '../services/account-options';
import type { PageAnswer, PageRoute } from './page-answer';
import { pageAnswer } from './page-headers';
import type { PageContext } from './views/page-context';

/**
 * One hosted page, on the GET (and HEAD) of its path below the prefix. A feature lists its pages
 * (`src/app/features.ts`); the pages' middleware and the API document read them from there, so a new page touches
 * no shared file.
 */
export interface HostedPage {
  /** What the page is: the summary of its GET in the API document. */
  summary: string;
  /**
   * For the landing page of an emailed link: what its GET names from the link's `token` (it never spends it). The
   * document then lists the parameter, and the 503 the page answers while the store cannot say.
   */
  link?: string;
  /** The page's route, for the prefix the account routes are mounted under. */
  route(prefix: string): PageRoute;
}

/** A feature's pages, by path below the prefix. */
export type HostedPages = Readonly<Record<string, HostedPage>>;

/** A page rendered from the rules in force alone; `csp` replaces the default one. */
export function renderedPage(summary: string, render: (context: PageContext) => string, csp?: string): HostedPage {
  return { summary, route: (prefix) => () => pageAnswer(render(pageContext(prefix)), 200, csp) };
}

/**
 * What the server found for a link's token: what the link would do (`pending`), nothing (no token, or one that is
 * unknown, spent, expired or superseded), or nothing known because the lookup failed.
 */
export type LinkState<Found extends object> =
  ({ state: 'pending' } & Found) | { state: 'none'; tokenGiven: boolean } | { state: 'unavailable' };

const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The landing page of an emailed link: it looks the token up without spending it (`find`, null for a dead link) and
 * names what the link would do; the POST its button sends spends it. A failed lookup (the database restarting) is
 * said as such, with a 503 and `Retry-After`.
 */
export function linkPage<Found extends object>(
  summary: string,
  link: string,
  find: (token: string) => Promise<Found | null>,
  render: (context: PageContext, link: LinkState<Found>) => string,
): HostedPage {
  return {
    summary,
    link,
    route:
      (prefix) =>
      async ({ query }): Promise<PageAnswer> => {
        const context = pageContext(prefix);
        const state = await linkStateOf(tokenOf(query), find);
        if (state.state !== 'unavailable') return pageAnswer(render(context, state));
        const answer = pageAnswer(render(context, state), 503);
        return { ...answer, headers: { ...answer.headers, 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) } };
      },
  };
}

async function linkStateOf<Found extends object>(
  token: string | string[] | undefined,
  find: (token: string) => Promise<Found | null>,
): Promise<LinkState<Found>> {
  if (typeof token !== 'string' || token === '') return { state: 'none', tokenGiven: token !== undefined };
  try {
    const found = await find(token);
    return found ? { state: 'pending', ...found } : { state: 'none', tokenGiven: true };
  } catch (error) {
    if (isStoreUnavailable(error)) return { state: 'unavailable' };
    throw error;
  }
}

/** The link's `token` parameter as a query parser gives it: absent, one value, or several. */
function tokenOf(query: URLSearchParams): string | string[] | undefined {
  const values = query.getAll('token');
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0] : values;
}

/** The rules the pages explain, read from the options in force, as the account routes read them. */
function pageContext(prefix: string): PageContext {
  // Fails as the API routes do (a ConfigurationError saying which token to set) when the host has not configured it.
  resolveAccountService();
  const options = resolveAccountOptions(Container.get(ACCOUNT_OPTIONS));
  return {
    prefix,
    passwordPolicy: options.password,
    verificationTokenTtlMs: options.verificationTokenTtlMs,
    resetTokenTtlMs: options.resetTokenTtlMs,
    emailChangeTokenTtlMs: options.emailChangeTokenTtlMs,
    reauthenticationWindowMs: options.reauthenticationWindowMs,
    loginChallengeTtlMs: options.loginChallengeTtlMs,
    passkeys: options.passkeys !== null,
    oidcProviders: [...(options.oidc?.providers.values() ?? [])].map(({ id, name }) => ({ id, name })),
    organizations: options.organizations && {
      roles: [...options.organizations.template.roles].map(([name, permissions]) => ({
        name,
        permissions: [...permissions],
      })),
      invitationTtlMs: options.organizations.invitationTtlMs,
    },
    apiKeys: { defaultDays: options.apiKeyDefaultLifetimeDays, maxDays: options.apiKeyMaxLifetimeDays },
  };
}
