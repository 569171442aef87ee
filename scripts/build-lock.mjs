// One build at a time in a checkout: `npm start` run by several instances at once, `npm pack` or `npm run build`
// beside them. The lock is a file created with O_EXCL beside build/ (`.build.lock`), holding its owner's pid; a
// waiting process polls until the owner releases it. An owner that died without releasing it (SIGKILL, a power cut)
// is noticed by its pid, so a crashed build never blocks the next one.
import { hostname } from 'node:os';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

export const LOCK = '.build.lock';
/** Serialises the breaking of a dead owner's lock, so that two waiters cannot both break it and one break the other's. */
const BREAKING = '.build.lock.breaking';
const POLL_MS = 100;
/** A lock file still empty this long after it was made lost its owner between the create and the write. */
const EMPTY_GRACE_MS = 5_000;
/** How long a waiter waits for builds in progress (one takes 15 to 60 s) before it gives up and says why. */
const WAIT_MS = 10 * 60_000;

/** The kernel's start time of a process (Linux), so that a pid reused by another process is not taken for the owner. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const me = () => ({ pid: process.pid, host: hostname(), started: startTime(process.pid) });

/** Whether the lock's owner still runs. An owner on another host (a shared folder) cannot be checked: it is trusted. */
function alive(owner) {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  return owner.started === null || startTime(owner.pid) === null || startTime(owner.pid) === owner.started;
}

/** The lock's text and its owner, or null when there is no lock; owner null while its creator has not written it. */
function readLock(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
  try {
    return { text, owner: JSON.parse(text) };
  } catch {
    return { text, owner: null };
  }
}

function ageMs(path) {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(path) {
  try {
    unlinkSync(path);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
}

/** Removes the lock if it still holds exactly `text`, a dead owner's, under the breaking mutex. */
function breakLock(root, text) {
  const breaking = join(root, BREAKING);
  let fd;
  try {
    fd = openSync(breaking, 'wx');
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    // Another waiter is breaking it now; one whose breaker died long ago is broken too.
    if (ageMs(breaking) > EMPTY_GRACE_MS) unlinkQuietly(breaking);
    return;
  }
  try {
    if (readLock(join(root, LOCK))?.text === text) unlinkQuietly(join(root, LOCK));
  } finally {
    closeSync(fd);
    unlinkQuietly(breaking);
  }
}

/**
 * Takes the build lock of the checkout at `root`, waiting while another live process holds it; `onWait(owner)` is
 * called once when it has to wait. Resolves with the function that releases it.
 */
export async function acquireBuildLock(root, onWait = () => {}) {
  const path = join(root, LOCK);
  const deadline = Date.now() + WAIT_MS;
  let waited = false;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      const text = JSON.stringify(me());
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      // Released on any exit too (process.exit on a signal, an uncaught error), not only by the caller.
      const release = () => {
        process.off('exit', release);
        if (readLock(path)?.text === text) unlinkQuietly(path);
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const lock = readLock(path);
    if (lock === null) continue;
    if (lock.owner === null ? ageMs(path) > EMPTY_GRACE_MS : !alive(lock.owner)) {
      breakLock(root, lock.text);
      continue;
    }
    if (!waited) {
      waited = true;
      onWait(lock.owner);
    }
    if (Date.now() > deadline) {
      throw new Error(`${path} is still held by pid ${lock.owner?.pid ?? '?'} after ${WAIT_MS / 60_000} minutes`);
    }
    await sleep(POLL_MS);
  }
}
