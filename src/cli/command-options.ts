/** How a `--flag` takes its value: `single` once, `list` repeatable and comma-separated (`--type a,b --type c`). */
export type OptionKind = 'single' | 'list';

/** What the command line gave: positional arguments, and each flag's value (a list's values, in order). */
export interface ParsedOptions {
  positional: string[];
  single: Map<string, string>;
  list: Map<string, string[]>;
}

/**
 * Reads `--name value` and `--name=value` flags among positional arguments, refusing unknown, repeated (for a
 * `single`) and valueless flags. Returns the parsed options, or the problem as one line for the usage error.
 */
export function parseOptions(args: string[], flags: Record<string, OptionKind>): ParsedOptions | string {
  const parsed: ParsedOptions = { positional: [], single: new Map(), list: new Map() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    // Own properties only: `--constructor` is an unknown flag, not Object.prototype's.
    const kind = Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (!kind) return `unknown option --${name}`;
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '') return `--${name} needs a value`;
    if (kind === 'list') {
      const values = value.split(',').map((part) => part.trim());
      if (values.some((part) => part === '')) return `--${name} has an empty value in "${value}"`;
      parsed.list.set(name, [...(parsed.list.get(name) ?? []), ...values]);
    } else {
      if (parsed.single.has(name)) return `--${name} is given twice`;
      parsed.single.set(name, value);
    }
  }
  return parsed;
}

/** `true` or `false`, as typed; undefined when absent. Throws the usage problem otherwise. */
export function booleanOption(options: ParsedOptions, name: string): boolean | undefined {
  const value = options.single.get(name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageProblem(`--${name} must be true or false, got "${value}"`);
}

/** A whole number from `min` to `max`; undefined when absent. */
export function integerOption(options: ParsedOptions, name: string, min: number, max: number): number | undefined {
  const value = options.single.get(name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageProblem(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

/**
 * An ISO 8601 date or instant (`2026-11-01`, `2026-11-01T09:30:00Z`); undefined when absent. A date alone is
 * midnight UTC, as `Date` reads it; an instant without a zone is refused rather than read in the machine's zone.
 */
export function dateOption(options: ParsedOptions, name: string): Date | undefined {
  const value = options.single.get(name);
  if (value === undefined) return undefined;
  const iso = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d))?$/;
  const date = new Date(value);
  if (!iso.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageProblem(`--${name} must be an ISO date or instant such as 2026-11-01 or 2026-11-01T09:30:00Z`);
  }
  return date;
}

/** A malformed command line, found before the database is opened: the CLI prints it with the usage (exit 2). */
export class UsageProblem extends Error {}
