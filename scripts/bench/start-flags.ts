import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node flags `npm start` gives the standalone server (package.json's `start` script), so that the bench measures
 * the server as it is started, and the flags are written in one place.
 */
export function startFlags(packageJson: string = join(__dirname, '../../../package.json')): string[] {
  const start: string | undefined = JSON.parse(readFileSync(packageJson, 'utf8')).scripts?.start;
  const words = start?.trim().split(/\s+/) ?? [];
  const entry = words.indexOf('build/src/server/main.js');
  if (words[0] !== 'node' || entry < 0) {
    throw new Error(`package.json's start script is not "node [flags] build/src/server/main.js": ${start}`);
  }
  return words.slice(1, entry);
}
