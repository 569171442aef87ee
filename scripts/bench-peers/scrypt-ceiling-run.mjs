import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './gatehouse-build.mjs';

const SCRIPT = fileURLToPath(new URL('scrypt-ceiling.mjs', import.meta.url));

/** Runs `scrypt-ceiling.mjs` in a child process of its own and takes the median of its runs. */
export function measureScryptCeiling(timing) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [SCRIPT, String(timing.warmupSeconds), String(timing.runSeconds), String(timing.runs)],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`scrypt-ceiling exited with ${code}`));
      const { rates, concurrency, peakRssBytes } = JSON.parse(stdout);
      resolve({ rate: median(rates), concurrency, peakRssBytes });
    });
  });
}
