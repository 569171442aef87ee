import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How `npm start` runs the standalone server: the variables it sets before `node`, and Node's flags. */
export interface StartCommand {
  env: Record<string, string>;
  flags: string[];
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

/**
 * Reads package.json's `start` script, `[NAME=value ...] node [flags] build/src/server/main.js`, so that the bench
 * measures the server as it is started, and the flags and variables are written in one place.
 */
export function startCommand(packageJson: string = join(__dirname, '../../../package.json')): StartCommand {
  const start: string | undefined = JSON.parse(readFileSync(packageJson, 'utf8')).scripts?.start;
  const words = start?.trim().split(/\s+/) ?? [];
  const env: Record<string, string> = {};
  let at = 0;
  for (let match; at < words.length && (match = ASSIGNMENT.exec(words[at])); at++) env[match[1]] = match[2];
  const entry = words.indexOf('build/src/server/main.js');
  if (words[at] !== 'node' || entry < at) {
    throw new Error(
      `package.json's start script is not "[NAME=value ...] node [flags] build/src/server/main.js": ${start}`,
    );
  }
  return { env, flags: words.slice(at + 1, entry) };
}

/** The Node flags of `npm start` (see `startCommand`). */
export function startFlags(packageJson?: string): string[] {
  return startCommand(packageJson).flags;
}

/** The variables `npm start` sets for the server (see `startCommand`). */
export function startEnv(packageJson?: string): Record<string, string> {
  return startCommand(packageJson).env;
}
