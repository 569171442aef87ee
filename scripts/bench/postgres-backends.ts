import { readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { cpuSecondsOf } from './bench-process';

/** CPU seconds used so far by each backend process, by pid. */
export type BackendCpu = Map<number, number>;

/**
 * The CPU of the PostgreSQL backends connected to the bench's database: the server process's figure leaves out the
 * work of the backend answering it, on the same two cores. Read from `/proc`, so only for a server on this machine;
 * a pid that is not a `postgres` process here (a remote server) is left out, and with none readable the figure is NaN.
 */
export class PostgresBackends {
  constructor(
    private readonly admin: Client,
    private readonly database: string,
  ) {}

  async cpuSeconds(): Promise<BackendCpu> {
    const { rows } = await this.admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [
      this.database,
    ]);
    const cpu: BackendCpu = new Map();
    for (const { pid } of rows) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.includes('(postgres)')) cpu.set(pid, cpuSecondsOf(stat));
      } catch {
        // Ended since the query, or not on this machine.
      }
    }
    return cpu;
  }
}

/**
 * CPU the backends used between two readings. A backend that connected in between counts from its start (its
 * start-up is part of the run); one that ended in between is lost, which the pools' idle timeouts (10 s and more)
 * make rare during a run.
 */
export function backendCpuSpent(before: BackendCpu, after: BackendCpu): number {
  if (after.size === 0) return NaN;
  let spent = 0;
  for (const [pid, seconds] of after) spent += seconds - (before.get(pid) ?? 0);
  return spent;
}
