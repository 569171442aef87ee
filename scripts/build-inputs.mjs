// What build/src is compiled from, and whether build/ holds a finished compilation of exactly that. Plain JavaScript:
// it runs before anything is compiled (`npm start`'s prestart), so it cannot be TypeScript of the project.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

/**
 * The hash of the inputs a finished compilation was made from, written into build/ by `build.mjs` after everything
 * else is in place and removed before anything in build/ changes: a failed, killed or crashed build never leaves one.
 */
export const STAMP = '.build-stamp';

/** Every file under `dir`, as paths relative to `root` with forward slashes, in a stable order. */
export function filesUnder(root, dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(root, path));
    else files.push(relative(root, path).split(sep).join('/'));
  }
  return files.sort();
}

/** The installed compiler's version: another TypeScript may emit other JavaScript from the same sources. */
function typescriptVersion(root) {
  try {
    const require = createRequire(join(root, 'package.json'));
    return JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;
  } catch {
    return 'none';
  }
}

/**
 * A hash of the contents, not the times: `git checkout` of an older commit gives files older times than the build,
 * and a time-based check would keep the newer build. Every file under src/ counts (a deleted or added file changes
 * the list), as do both tsconfigs (build:all compiles with one, build with the other, the same src/ either way), the
 * whole package.json (its scripts say how the build is made) and the compiler's version.
 */
export function inputsHash(root, sources = filesUnder(root, join(root, 'src'))) {
  const hash = createHash('sha256');
  hash.update(`typescript ${typescriptVersion(root)}\0`);
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', ...sources]) {
    const path = join(root, file);
    const content = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/**
 * Why build/ must be compiled again, or null when it holds a finished compilation of the current inputs. Besides the
 * stamp, every source's output must still be there: a file deleted from build/ by hand is noticed too.
 */
export function staleReason(root) {
  const build = join(root, 'build');
  let stamp;
  try {
    stamp = readFileSync(join(build, STAMP), 'utf8').trim();
  } catch {
    return 'no finished build';
  }
  const sources = filesUnder(root, join(root, 'src'));
  if (stamp !== inputsHash(root, sources)) return 'the sources changed since the last build';
  for (const file of sources) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const output = join(build, file.replace(/\.ts$/, '.js'));
    if (!existsSync(output)) return `${relative(root, output)} is missing`;
  }
  return null;
}
