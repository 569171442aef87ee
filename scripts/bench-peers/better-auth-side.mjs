/** better-auth in the peer bench: `better-auth-server.mjs` as a child process, with one user signed in. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BenchProcess, PASSWORD } from './gatehouse-build.mjs';
import { SCRYPT } from './better-auth-hashing.mjs';

const SERVER = fileURLToPath(new URL('better-auth-server.mjs', import.meta.url));
const READY = /better-auth listening on/;

/** The installed version, read from its package.json (the lockfile pins it; this says what actually ran). */
export function betterAuthVersion() {
  const manifest = new URL('node_modules/better-auth/package.json', import.meta.url);
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

export function betterAuthHashing() {
  return {
    algorithm: 'scrypt',
    ...SCRYPT,
    where:
      "libuv's thread pool (node:crypto scrypt), Node's default 4 threads; no queue, every request hashes at once, " +
      'and the WebCrypto HMACs of its signed session tokens (every bearer check, every new session) wait in the ' +
      'same pool behind the hashes',
  };
}

/**
 * Node's fetch sends `Sec-Fetch-Mode: cors`, on which better-auth's CSRF check requires a trusted Origin, as a
 * browser would send; autocannon sends neither, and no check runs (nor does one in Gatehouse).
 */
async function post(server, path, body) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify(body),
  });
}

export async function startBetterAuth() {
  const server = await BenchProcess.start(SERVER, {}, READY);
  try {
    const email = 'benchreader@example.com';
    const signedUp = await post(server, '/api/auth/sign-up/email', { email, password: PASSWORD, name: 'bench' });
    if (signedUp.status !== 200) throw new Error(`better-auth: sign-up answered ${signedUp.status}`);
    const signedIn = await post(server, '/api/auth/sign-in/email', { email, password: PASSWORD });
    // The bearer plugin hands the signed session token over in this header.
    const token = signedIn.headers.get('set-auth-token');
    if (signedIn.status !== 200 || !token) throw new Error(`better-auth: sign-in answered ${signedIn.status}`);
    const bearer = { authorization: `Bearer ${token}` };
    const prefix = `p${Date.now().toString(36)}`;
    let next = 0;
    return {
      name: 'better-auth',
      server,
      routes: {
        session: 'GET /api/auth/get-session',
        signIn: 'POST /api/auth/sign-in/email',
        signUp: 'POST /api/auth/sign-up/email',
      },
      session: (connections) => ({
        url: `${server.url}/api/auth/get-session`,
        headers: bearer,
        connections,
        expect: [200],
      }),
      signIn: (connections) => ({
        url: `${server.url}/api/auth/sign-in/email`,
        method: 'POST',
        body: { email, password: PASSWORD },
        connections,
        expect: [200],
      }),
      // A new account per request; better-auth signs it in too (autoSignIn, its default).
      signUp: (connections) => ({
        url: `${server.url}/api/auth/sign-up/email`,
        method: 'POST',
        body: () => {
          const name = `${prefix}x${(next++).toString(36)}`;
          return { email: `${name}@example.com`, password: PASSWORD, name };
        },
        connections,
        expect: [200],
      }),
      // get-session answers 200 with `null` for a session it does not know, so the status alone proves nothing: the
      // token is checked to still be good around every run that counts its 200s.
      async checkSession() {
        const response = await fetch(`${server.url}/api/auth/get-session`, { headers: bearer });
        const body = await response.json();
        if (response.status !== 200 || !body?.session) {
          throw new Error(`better-auth: get-session answered ${response.status} without a session`);
        }
      },
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
