import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import type { OidcOptions } from '../../src/services/oidc/oidc-options';

/** A provider configuration the HTTP tests can set without any provider running: nothing is fetched at start. */
export const TEST_OIDC: OidcOptions = {
  providers: [
    {
      id: 'corp',
      name: 'Corp ID',
      issuer: 'https://id.corp.example',
      clientId: 'gatehouse',
      clientSecret: 'corp-client-secret-never-shown',
    },
    { id: 'github', preset: 'github', clientId: 'gh-client', clientSecret: 'gh-client-secret-never-shown' },
  ],
  callbackBase: 'http://localhost:3000/auth',
};

/**
 * Turns the providers on for the app's routes: the routes resolve the core per request from the container, so
 * setting the options token again builds a core with them from the next request on.
 */
export function configureOidc(options: OidcOptions = TEST_OIDC): void {
  Container.set(ACCOUNT_OPTIONS, { ...Container.get(ACCOUNT_OPTIONS), oidc: options });
}

export const SOME_ID = '00000000-0000-4000-8000-000000000000';
