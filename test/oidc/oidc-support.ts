import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import type { OidcOptions, OidcProviderOptions } from '../../src/services/oidc/oidc-options';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { bearer, PREFIX, type TestApp } from '../support/test-app';

/** Where the test apps say they are served: the provider redirects to exactly this base's callback. */
export const CALLBACK_BASE = `http://localhost:3000${PREFIX}`;
export const RETURN_URL = `${CALLBACK_BASE}/oidc/return`;
export const PROVIDER_ID = 'idp';
export const CLIENT = { clientId: 'gatehouse-tests', clientSecret: 'a-client-secret-never-shown' };
export const CALLBACK_URL = `${CALLBACK_BASE}/oidc/${PROVIDER_ID}/callback`;

/** A real provider on loopback HTTPS, with Gatehouse's callback registered exactly. */
export function startTestProvider(): Promise<TestOidcProvider> {
  return startOidcProvider({ ...CLIENT, redirectUris: [CALLBACK_URL] });
}

/** The account options' `oidc` for `idp`: one provider, the hosted return page allowed. */
export function oidcOptions(idp: TestOidcProvider, provider: Partial<OidcProviderOptions> = {}): OidcOptions {
  return {
    providers: [{ id: PROVIDER_ID, name: 'Test IdP', issuer: idp.issuer, ...CLIENT, ...provider }],
    callbackBase: CALLBACK_BASE,
    returnUrls: [RETURN_URL],
  };
}

/** Turns providers on for the app's routes from the next request (the routes build the core from the options token). */
export function configureOidc(options: OidcOptions, extra: Record<string, unknown> = {}): void {
  Container.set(ACCOUNT_OPTIONS, { ...Container.get(ACCOUNT_OPTIONS), oidc: options, ...extra });
}

/** A started flow as a browser holds it: where the provider is, and the flow cookie. */
export interface StartedFlow {
  authorizationUrl: string;
  cookie: string;
}

export async function startFlow(t: TestApp, providerId = PROVIDER_ID): Promise<StartedFlow> {
  const response = await t.http.get(`${PREFIX}/oidc/${providerId}/start`).expect(302);
  const cookie = flowCookie(response.headers['set-cookie']);
  return { authorizationUrl: response.headers.location as string, cookie };
}

export async function startLink(t: TestApp, token: string): Promise<StartedFlow> {
  const response = await t.http.post(`${PREFIX}/oidc/${PROVIDER_ID}/link`).set(bearer(token)).send({}).expect(200);
  return {
    authorizationUrl: response.body.authorization_url as string,
    cookie: flowCookie(response.headers['set-cookie']),
  };
}

/** The `name=value` of the flow cookie a response set. */
export function flowCookie(setCookie: string | string[] | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const found = cookies.find((cookie) => cookie.startsWith('gatehouse_oidc='));
  expect(found, 'the flow cookie').to.be.a('string');
  return found!.split(';')[0];
}

/** Calls Gatehouse's callback with the provider's redirect (as the browser would) and a cookie; the response. */
export function callCallback(t: TestApp, callbackUrl: string, cookie?: string) {
  const url = new URL(callbackUrl);
  const request = t.http.get(`${url.pathname}${url.search}`);
  return cookie ? request.set('Cookie', cookie) : request;
}

/** The fragment of the return URL a callback redirected to, as key/values. */
export function fragmentOf(location: string): URLSearchParams {
  expect(location.startsWith(`${RETURN_URL}#`), `redirected to the return page: ${location}`).to.equal(true);
  return new URLSearchParams(location.slice(location.indexOf('#') + 1));
}

/** The whole sign-in of a browser as `sub` up to the return page's code. */
export async function codeFor(t: TestApp, idp: TestOidcProvider, sub: string): Promise<string> {
  const flow = await startFlow(t);
  const callbackUrl = await idp.authorize(flow.authorizationUrl, { as: sub });
  const response = await callCallback(t, callbackUrl, flow.cookie).expect(302);
  const code = fragmentOf(response.headers.location as string).get('code');
  expect(code, `a one-time code in ${response.headers.location}`).to.be.a('string');
  return code!;
}

/** The exchange of a one-time code. */
export function exchange(t: TestApp, code: string) {
  return t.http.post(`${PREFIX}/oidc/exchange`).send({ code });
}
