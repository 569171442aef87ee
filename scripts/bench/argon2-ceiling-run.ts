import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { median, type Timing } from './measure';

export interface Argon2Ceiling {
  rate: number;
  concurrency: number;
  peakRssBytes: number;
}

/** Runs `argon2-ceiling.js` in a child process of its own and takes the median of its runs. */
export function measureArgon2Ceiling(timing: Timing): Promise<Argon2Ceiling> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(__dirname, 'argon2-ceiling.js'),
        String(timing.warmupSeconds),
        String(timing.runSeconds),
        String(timing.runs),
      ],
      { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`argon2-ceiling exited with ${code}`));
      const { rates, concurrency, peakRssBytes } = JSON.parse(stdout) as {
        rates: number[];
        concurrency: number;
        peakRssBytes: number;
      };
      resolve({ rate: median(rates), concurrency, peakRssBytes });
    });
  });
}
