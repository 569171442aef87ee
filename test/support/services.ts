import { connect } from 'node:net';

// The external servers some tests need (PostgreSQL, Redis, MariaDB), with one rule for all of them: with `CI=true` an
// absent server fails the run, since a CI that silently skips is a CI that tests nothing; elsewhere the tests are
// skipped with one line saying what is missing and how to point them at a server.

export type ServiceName = 'postgres' | 'redis' | 'mariadb';

const SERVICES: Record<ServiceName, { label: string; variable: string; defaultUrl: string; defaultPort: number }> = {
  postgres: {
    label: 'PostgreSQL',
    variable: 'GATEHOUSE_TEST_POSTGRES_URL',
    defaultUrl: 'postgres://postgres@127.0.0.1:5432/test',
    defaultPort: 5432,
  },
  redis: {
    label: 'Redis',
    variable: 'GATEHOUSE_TEST_REDIS_URL',
    defaultUrl: 'redis://127.0.0.1:6379',
    defaultPort: 6379,
  },
  mariadb: {
    label: 'MariaDB',
    variable: 'GATEHOUSE_TEST_MARIADB_URL',
    defaultUrl: 'mysql://root@127.0.0.1:3306/test',
    defaultPort: 3306,
  },
};

const PROBE_TIMEOUT_MS = 1_000;
const probes = new Map<ServiceName, Promise<boolean>>();
const reported = new Set<ServiceName>();

/** The URL tests use for the service: its `GATEHOUSE_TEST_*_URL` variable, or the machine's default. */
export function serviceUrl(name: ServiceName): string {
  const service = SERVICES[name];
  return process.env[service.variable]?.trim() || service.defaultUrl;
}

/** Whether something accepts TCP connections at the service's address (asked once per test run). */
export function serviceAvailable(name: ServiceName): Promise<boolean> {
  let probe = probes.get(name);
  if (!probe) {
    const url = new URL(serviceUrl(name));
    probe = canConnect(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port) || SERVICES[name].defaultPort);
    probes.set(name, probe);
  }
  return probe;
}

/**
 * For a mocha `before` hook: returns when the service is there; otherwise fails (CI=true) or skips the enclosing
 * suite with a message naming the service, the address tried and the variable that changes it.
 *
 * @example
 * before(async function () { await requireService(this, 'postgres'); });
 */
export async function requireService(context: Mocha.Context, name: ServiceName): Promise<void> {
  if (await serviceAvailable(name)) return;
  const { label, variable } = SERVICES[name];
  const where = redacted(serviceUrl(name));
  if (process.env.CI === 'true') {
    throw new Error(`${label} is required when CI=true but nothing answers at ${where} (set ${variable})`);
  }
  if (!reported.has(name)) {
    reported.add(name);
    console.warn(`  [skipped] ${label} tests: nothing answers at ${where}; start it or set ${variable}`);
  }
  context.skip();
}

/** `describe` whose tests need the service: they run, fail (CI=true) or are skipped, per `requireService`. */
export function describeWithService(name: ServiceName, title: string, body: (this: Mocha.Suite) => void): void {
  describe(title, function () {
    before(async function () {
      await requireService(this, name);
    });
    body.call(this);
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The URL without its password, for messages. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
