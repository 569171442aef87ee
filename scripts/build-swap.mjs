// Compiling beside build/ and moving the result in, so that build/ never holds a half-written tree: a server starting
// from it, or a second `npm start` deciding whether to compile, sees the whole previous build or the whole new one.
// Callers hold the build lock (build-lock.mjs), so one compilation runs at a time and a waiting `npm start` uses the
// one it waited for instead of compiling again.
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';
import { inputsHash, STAMP } from './build-inputs.mjs';

/** Each compilation's own folder beside build/ (same depth, so relative paths in source maps stay right). */
export const TEMP_PREFIX = '.build-tmp-';

function removeQuietly(path) {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // An orphaned compiler may still write into a dead build's folder; the next build tries again.
  }
}

/** The folders of compilations that died (under the lock, any folder but ours is one). */
function removeLeftovers(root) {
  for (const name of readdirSync(root)) {
    if (name.startsWith(TEMP_PREFIX)) removeQuietly(join(root, name));
  }
}

/** Runs the project's own tsc; on SIGINT, SIGTERM or SIGHUP it is stopped and its folder removed before we exit. */
function compile(root, config, outDir) {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', config, '--outDir', outDir], { cwd: root, stdio: 'inherit' });
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const stop = (signal) => {
      child.kill(signal);
      removeQuietly(outDir);
      process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal] ?? 0));
    };
    for (const signal of signals) process.on(signal, stop);
    const done = () => signals.forEach((signal) => process.off(signal, stop));
    child.once('error', (error) => (done(), reject(error)));
    child.once('exit', (code, signal) => (done(), resolve(code ?? (signal ? 1 : 0))));
  });
}

/** Makes `path` a directory, replacing a file that stands where a folder now must. */
function ensureDirectory(path) {
  try {
    if (lstatSync(path).isDirectory()) return;
    unlinkSync(path);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  mkdirSync(path);
}

/** Renames every file of `from` over its place in `to` (each rename is atomic); returns the paths it put there. */
function moveTree(from, to, prefix = '', moved = new Set()) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    moved.add(rel);
    if (entry.isDirectory()) {
      ensureDirectory(join(to, entry.name));
      moveTree(join(from, entry.name), join(to, entry.name), rel + '/', moved);
    } else {
      const target = join(to, entry.name);
      try {
        if (lstatSync(target).isDirectory()) rmSync(target, { recursive: true });
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
      renameSync(join(from, entry.name), target);
    }
  }
  return moved;
}

/** Removes what the new compilation did not produce: outputs of deleted sources, or the tests after `npm run build`. */
function prune(dir, keep, prefix = '') {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (!keep.has(rel)) rmSync(join(dir, entry.name), { recursive: true, force: true });
    else if (entry.isDirectory()) prune(join(dir, entry.name), keep, rel + '/');
  }
}

/**
 * Compiles with `config` into a fresh folder beside build/ and moves the result in; the caller holds the build lock.
 * A failed compilation leaves build/ as it was (the last finished build, with its stamp). While the files move in,
 * there is no stamp, so a crash halfway is compiled again by the next start; every file is replaced by one rename, so
 * a process starting meanwhile reads whole files, never a missing or half-written one. Resolves with tsc's status.
 */
export async function compileAndSwap(root, config) {
  removeLeftovers(root);
  // Taken before the compiler reads the sources: a file edited during the build leaves a stamp that no longer matches.
  const hash = inputsHash(root);
  const temp = join(root, `${TEMP_PREFIX}${process.pid}`);
  const status = await compile(root, config, temp);
  if (status !== 0) {
    removeQuietly(temp);
    process.stderr.write('gatehouse: the compiler failed; build/ still holds the last finished build\n');
    return status;
  }
  const build = join(root, 'build');
  mkdirSync(build, { recursive: true });
  rmSync(join(build, STAMP), { force: true });
  const moved = moveTree(temp, build);
  prune(build, moved);
  const pendingStamp = join(build, `${STAMP}.${process.pid}`);
  writeFileSync(pendingStamp, hash + '\n');
  renameSync(pendingStamp, join(build, STAMP));
  removeQuietly(temp);
  return 0;
}

/** `npm run clean`: build/ and any dead compilation's folder, under the lock so that no build in progress loses it. */
export function clean(root) {
  removeLeftovers(root);
  removeQuietly(join(root, 'build'));
}
