import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { join } from 'node:path';

// What the two provider harnesses (oidc-provider.ts, github-stub.ts) share: the test CA's certificate, listening on
// the same port again after a stop, and a browser's walk through a provider's redirects.

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'oidc');

/** The test CA's leaf certificate for localhost and 127.0.0.1. */
export function testTlsCertificate(): { key: Buffer; cert: Buffer } {
  return {
    key: readFileSync(join(FIXTURES, 'localhost-key.pem')),
    cert: readFileSync(join(FIXTURES, 'localhost.pem')),
  };
}

export function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** Stops listening and drops open connections, so a stopped provider refuses at once. */
export function stopServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Follows a provider's redirects as a browser would (its own cookie jar, cookies by name: the provider's are scoped
 * by path but named apart), until one leaves the provider's origin: that URL is the answer, not fetched.
 */
export async function followToClient(start: string, origin: string, visit: (url: URL) => URL): Promise<string> {
  const jar = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.origin !== origin) return url.href;
    url = visit(url);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const gone = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (gone) jar.delete(name);
      else jar.set(name, pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    throw new Error(`The provider answered ${response.status} at ${url.pathname}: ${await response.text()}`);
  }
  throw new Error('The provider redirected too many times');
}
