import { readdirSync, readFileSync } from 'node:fs';

/**
 * Each thread's nice value, by thread id: field 19 of /proc/<pid>/task/<tid>/stat (the command name before it, in
 * parentheses, may hold spaces). Linux only. Plain data, so that a child process can print it as JSON.
 */
export function threadNices(pid: number | 'self' = 'self'): Record<string, number> {
  const nices: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    nices[tid] = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  }
  return nices;
}
