import { dirname } from 'node:path';

interface ModuleRecord {
  id: string;
  filename: string;
  loaded: boolean;
  exports: unknown;
  paths: string[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's module system itself, not a package
const { Module } = require('node:module') as { Module: new (id: string) => ModuleRecord };

/**
 * Modules that a package requires when it loads but that Gatehouse never calls: each is replaced, until something
 * reads from it, by a stand-in that loads the real module on first use. Keyed by the package that requires it.
 *
 * class-validator's index requires every decorator, among them `IsPhoneNumber`, which requires libphonenumber-js
 * with its full metadata (about 8 MiB resident on Node 20, more on 24); routing-controllers requires that index. No
 * Gatehouse DTO validates a phone number, so the standalone server never needs it.
 */
const DEFERRED: { requiredBy: string; module: string }[] = [
  { requiredBy: 'class-validator', module: 'libphonenumber-js/max' },
];

/**
 * Puts the stand-ins in place. Runs before anything requires the packages named in `DEFERRED` (the server's entry
 * imports it second); a module already loaded, or one that does not resolve, is left alone.
 */
export function deferUnusedModules(): void {
  for (const { requiredBy, module } of DEFERRED) deferModule(requiredBy, module);
}

function deferModule(requiredBy: string, module: string): void {
  let filename: string;
  try {
    // Resolved as the requiring package resolves it, so that a copy nested under that package is the one deferred.
    filename = require.resolve(module, { paths: [dirname(require.resolve(requiredBy))] });
  } catch {
    return;
  }
  if (require.cache[filename]) return;
  let real: object | undefined;
  const load = (): object => {
    if (real) return real;
    delete require.cache[filename];
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the real module, loaded at its first use
      real = require(filename) as object;
    } finally {
      // Back in place so that a later require of the same file gets the stand-in, which now forwards to `real`.
      require.cache[filename] = standIn as unknown as NodeJS.Module;
    }
    return real;
  };
  const standIn = new Module(filename);
  standIn.filename = filename;
  standIn.loaded = true;
  standIn.exports = new Proxy(
    {},
    {
      get: (_target, key) => Reflect.get(load(), key),
      has: (_target, key) => Reflect.has(load(), key),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
        // A proxy may only report a property configurable when its target has it so: the target is empty.
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
  require.cache[filename] = standIn as unknown as NodeJS.Module;
}

deferUnusedModules();
