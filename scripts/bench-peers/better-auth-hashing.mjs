/**
 * better-auth's password hash as installed, so that the comparison can tell the cost of the hash from the cost of
 * the framework.
 *
 * better-auth hashes with `hashPassword` of `better-auth/crypto`, which is `@better-auth/utils/password`: under Node
 * its "node" export condition picks `dist/password.node.mjs`, i.e. `node:crypto` scrypt, run on libuv's thread pool
 * (Node's default of 4 threads; better-auth neither sizes it nor queues hashes). Other runtimes get the pure-JS
 * `@noble/hashes` scrypt with the same parameters. The parameters are constants of that file, not exported, so they
 * are written here and checked against the installed package by `checkScryptParameters`.
 */
import { scrypt } from 'node:crypto';
import { hashPassword } from 'better-auth/crypto';

/** Read from `@better-auth/utils/dist/password.node.mjs` (better-auth 1.7.25): 128 * N * r bytes = 32 MiB a hash. */
export const SCRYPT = { N: 16384, r: 16, p: 1, dkLen: 64 };

/** One scrypt with SCRYPT's parameters, as better-auth derives its key (NFKC password, the hex salt as given). */
function derive(password, salt) {
  const { N, r, p, dkLen } = SCRYPT;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, dkLen, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Hashes a password with the installed better-auth and derives the same key with SCRYPT: equal keys prove the
 * parameters written above are the ones better-auth uses. Throws otherwise (after an upgrade, read them again).
 */
export async function checkScryptParameters(password) {
  const stored = await hashPassword(password);
  const [salt, key] = stored.split(':');
  const derived = (await derive(password, salt)).toString('hex');
  if (derived !== key) {
    throw new Error(
      `better-auth's password hash is not scrypt ${JSON.stringify(SCRYPT)}: read the parameters again from ` +
        '@better-auth/utils/dist/password.node.mjs',
    );
  }
}
