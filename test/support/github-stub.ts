import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { followToClient, listen, stopServer, testTlsCertificate } from './https-test-server';

/**
 * An HTTPS server shaped like GitHub's OAuth apps (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/
 * authorizing-oauth-apps), for the github preset pointed at it through `authorizationEndpoint`, `tokenEndpoint` and
 * `apiBase`. Like GitHub: no discovery, no ID token, the token endpoint takes `client_secret_post` and answers JSON
 * only when asked (`Accept: application/json`), and a refused code is an HTTP 200 carrying `error`.
 *
 * ```ts
 * const github = await startGithubStub({ clientId: 'gh-client', clientSecret: 'gh-secret', redirectUris: [callback] });
 * github.addAccount({ id: 4242, login: 'ann', emails: [{ email: 'ann@example.com', primary: true, verified: true }] });
 * const callbackUrl = await github.authorize(authorizationUrl, { as: 4242 }); // ?code&state: not called
 * ```
 */
export interface GithubStub {
  readonly origin: string;
  readonly port: number;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** Below the origin (`/api/v3`, as GitHub Enterprise Server has it), so the client's joining of paths is tested. */
  readonly apiBase: string;
  /** Every request, oldest first: what the client sent (the token request's form included). */
  readonly requests: GithubRequest[];
  addAccount(account: GithubAccount): void;
  /** For a browser following redirects itself: the next authorizations sign in as this account (`null`: stop). */
  loginAs(id: number | null): void;
  /** Follows the authorize redirect as `as` (or refuses, `deny`) and returns the client's callback URL, not called. */
  authorize(authorizationUrl: string, options: { as: number; deny?: boolean }): Promise<string>;
  /** Every answer is 503 until `failing(false)`. */
  failing(on: boolean): void;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface GithubAccount {
  id: number;
  login: string;
  /** `/user`'s public profile address: not verified by GitHub, never to be trusted. */
  profileEmail?: string | null;
  emails: { email: string; primary: boolean; verified: boolean; visibility?: 'public' | 'private' | null }[];
}

export interface GithubRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  form: Record<string, string> | null;
}

export interface GithubStubOptions {
  clientId: string;
  clientSecret: string;
  /** Exact: GitHub itself allows a registered callback's sub-paths, the stub is stricter. */
  redirectUris: string[];
}

interface IssuedCode {
  accountId: number;
  redirectUri: string;
  codeChallenge: string | null;
  scope: string;
  expiresAt: number;
  used: boolean;
}

const CODE_TTL_MS = 10 * 60_000;

export async function startGithubStub(options: GithubStubOptions): Promise<GithubStub> {
  const accounts = new Map<number, GithubAccount>();
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, { accountId: number; scope: string }>();
  const requests: GithubRequest[] = [];
  let autoLogin: number | null = null;
  let failing = false;

  const server = createServer(testTlsCertificate(), (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`stub failed: ${String(error)}`);
    });
  });
  const port = await listen(server, 0);
  const origin = `https://127.0.0.1:${port}`;
  const apiPrefix = '/api/v3';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const form = req.method === 'POST' ? Object.fromEntries(new URLSearchParams(await bodyOf(req))) : null;
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: { ...req.headers }, form });
    if (failing) return json(res, 503, { message: 'Service unavailable' });
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') return authorizeEndpoint(url, res);
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') return tokenEndpoint(req, form!, res);
    if (req.method === 'GET' && url.pathname === `${apiPrefix}/user`) {
      const account = bearer(req);
      if (!account) return json(res, 401, { message: 'Bad credentials' });
      return json(res, 200, { id: account.id, login: account.login, email: account.profileEmail ?? null });
    }
    if (req.method === 'GET' && url.pathname === `${apiPrefix}/user/emails`) {
      const account = bearer(req);
      if (!account) return json(res, 401, { message: 'Bad credentials' });
      return json(
        res,
        200,
        account.emails.map((entry) => ({ visibility: null, ...entry })),
      );
    }
    json(res, 404, { message: 'Not Found' });
  }

  function authorizeEndpoint(url: URL, res: ServerResponse): void {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? options.redirectUris[0];
    if (query.get('client_id') !== options.clientId || !options.redirectUris.includes(redirectUri)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('redirect_uri_mismatch or unknown client_id');
      return;
    }
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const as = query.get('as') === null ? autoLogin : Number(query.get('as'));
    const account = as === null ? undefined : accounts.get(as);
    if (query.get('deny') === '1' || !account) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user has denied your application access.');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    const challenge = query.get('code_challenge');
    if (challenge !== null && query.get('code_challenge_method') !== 'S256') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('code_challenge_method must be S256');
      return;
    }
    const code = randomBytes(10).toString('hex');
    codes.set(code, {
      accountId: account.id,
      redirectUri,
      codeChallenge: challenge,
      scope: query.get('scope') ?? '',
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
    });
    back.searchParams.set('code', code);
    res.writeHead(302, { location: back.href }).end();
  }

  function tokenEndpoint(req: IncomingMessage, form: Record<string, string>, res: ServerResponse): void {
    // GitHub answers form-encoded unless asked for JSON, and a refusal with 200: a client must cope with both.
    const answer = (body: Record<string, string>) => {
      if (String(req.headers.accept ?? '').includes('application/json')) return json(res, 200, body);
      res
        .writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' })
        .end(new URLSearchParams(body).toString());
    };
    const refuse = (error: string) => answer({ error, error_description: error.replace(/_/g, ' ') });
    if (form.client_id !== options.clientId || form.client_secret !== options.clientSecret) {
      return refuse('incorrect_client_credentials');
    }
    const issued = codes.get(form.code ?? '');
    if (!issued || issued.used || issued.expiresAt < Date.now()) return refuse('bad_verification_code');
    issued.used = true;
    if (form.redirect_uri !== undefined && form.redirect_uri !== issued.redirectUri) {
      return refuse('redirect_uri_mismatch');
    }
    if (issued.codeChallenge !== null) {
      const verifier = form.code_verifier ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== issued.codeChallenge) {
        return refuse('bad_verification_code');
      }
    }
    const accessToken = `gho_${randomBytes(18).toString('hex')}`;
    tokens.set(accessToken, { accountId: issued.accountId, scope: issued.scope });
    answer({ access_token: accessToken, token_type: 'bearer', scope: issued.scope.replace(/ /g, ',') });
  }

  function bearer(req: IncomingMessage): GithubAccount | undefined {
    const match = /^(?:bearer|token) (\S+)$/i.exec(req.headers.authorization ?? '');
    const token = match ? tokens.get(match[1]) : undefined;
    return token ? accounts.get(token.accountId) : undefined;
  }

  return {
    origin,
    port,
    authorizationEndpoint: `${origin}/login/oauth/authorize`,
    tokenEndpoint: `${origin}/login/oauth/access_token`,
    apiBase: `${origin}${apiPrefix}`,
    requests,
    addAccount: (account) => void accounts.set(account.id, account),
    loginAs: (id) => {
      autoLogin = id;
    },
    authorize: (authorizationUrl, { as, deny }) =>
      followToClient(authorizationUrl, origin, (url) => {
        if (url.pathname !== '/login/oauth/authorize') return url;
        const withAccount = new URL(url);
        withAccount.searchParams.set('as', String(as));
        if (deny) withAccount.searchParams.set('deny', '1');
        return withAccount;
      }),
    failing: (on) => {
      failing = on;
    },
    stop: () => stopServer(server),
    start: async () => {
      await listen(server, port);
    },
    close: () => stopServer(server),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
