/**
 * `npm run timing`: does the standalone server answer in the same time whether or not an account exists?
 * (SECURITY-CHECKLIST E2 and R1.) It starts the real server (`build/src/server/main.js`, as `npm start` does) on a
 * fresh SQLite file with the default argon2 parameters and rate limits off, creates a verified and an unverified
 * account, then sends interleaved requests, in random order, for three pairs:
 *
 *   login            unknown user                 vs  known user, wrong password
 *   register         free email                   vs  email a verified account owns
 *   register         free email                   vs  email an unverified registration claims
 *   reset request    existing email               vs  unknown email
 *   resend           existing unverified email    vs  unknown email
 *
 * and prints the median, p10 and p90 of each side and the difference of the medians. It exits 1 when a pair's
 * medians differ by more than the tolerance: `--max-diff-ms` (5) or `--max-diff-ratio` (0.10) of the larger median,
 * whichever is larger, so that a pair of 1 ms answers is not failed over noise.
 *
 * The reset and resend pairs are measured once per email transport of `--smtp` (default all three): `console` (the
 * default sender), `slow` (a real SMTP server on loopback that holds every reply to DATA for `--smtp-delay-ms`,
 * default 2000) and `down` (nothing listens at the SMTP address). Only the existing-email side queues mail, so a
 * difference here would show delivery leaking into the answer. Login and registration are measured once, with the
 * first transport; every registration has a new username, and the free side a new address each time.
 *
 *   npm run timing -- --requests 300 --max-diff-ms 5 --max-diff-ratio 0.1 --smtp console,slow,down
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../test/email/smtp-test-server';
import { StandaloneServer } from '../test/server/standalone-server';

const PASSWORD = 'violet staircase 42 umbrella';
const WRONG_PASSWORD = 'quiet lantern over 7 rivers';

type Transport = 'console' | 'slow' | 'down';
const TRANSPORTS: readonly Transport[] = ['console', 'slow', 'down'];

interface Options {
  requests: number;
  warmup: number;
  maxDiffMs: number;
  maxDiffRatio: number;
  smtpDelayMs: number;
  smtp: Transport[];
}

interface Sample {
  status: number;
  body: string;
  ms: number;
}

/** One side of a pair: the request to send (a body, or one made anew for each request) and the status it must get. */
interface Side {
  label: string;
  path: string;
  body: object | (() => object);
  status: number;
}

interface Pair {
  name: string;
  a: Side;
  b: Side;
}

const USAGE =
  'usage: npm run timing -- [--requests 300] [--warmup 20] [--max-diff-ms 5] [--max-diff-ratio 0.1] ' +
  '[--smtp console,slow,down] [--smtp-delay-ms 2000]';

function parseOptions(argv: string[]): Options {
  const options: Options = {
    requests: 300,
    warmup: 20,
    maxDiffMs: 5,
    maxDiffRatio: 0.1,
    smtpDelayMs: 2000,
    smtp: [...TRANSPORTS],
  };
  const names: Record<string, Exclude<keyof Options, 'smtp'>> = {
    '--requests': 'requests',
    '--warmup': 'warmup',
    '--max-diff-ms': 'maxDiffMs',
    '--max-diff-ratio': 'maxDiffRatio',
    '--smtp-delay-ms': 'smtpDelayMs',
  };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--smtp') {
      const chosen = (argv[i + 1] ?? '').split(',');
      if (!chosen.every((name) => (TRANSPORTS as readonly string[]).includes(name))) throw new Error(USAGE);
      options.smtp = chosen as Transport[];
      continue;
    }
    const key = names[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isFinite(value) || value < 0) throw new Error(USAGE);
    options[key] = value;
  }
  return options;
}

/** One keep-alive connection, so that what is timed is the server's work, not TCP set-up. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(baseUrl: string, path: string, body: object): Promise<Sample> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const call = request(`${baseUrl}${path}`, {
      method: 'POST',
      agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) },
    });
    call.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
    });
    call.on('error', reject);
    call.end(payload);
  });
}

function quantile(sorted: number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

function summarize(times: number[]) {
  const sorted = [...times].sort((x, y) => x - y);
  return { p10: quantile(sorted, 0.1), median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
}

/** `count` of each label, in a random order (Fisher-Yates on a crypto-random stream). */
function interleaved(count: number): ('a' | 'b')[] {
  const order: ('a' | 'b')[] = [...Array<'a'>(count).fill('a'), ...Array<'b'>(count).fill('b')];
  const random = randomBytes(order.length * 4);
  for (let i = order.length - 1; i > 0; i--) {
    const j = random.readUInt32LE(i * 4) % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function measure(baseUrl: string, pair: Pair, options: Options) {
  const send = async (side: Side) => {
    const sample = await post(baseUrl, side.path, typeof side.body === 'function' ? side.body() : side.body);
    if (sample.status !== side.status) {
      throw new Error(`${pair.name}, ${side.label}: expected ${side.status}, got ${sample.status} ${sample.body}`);
    }
    return sample;
  };
  for (const label of interleaved(options.warmup)) await send(pair[label]);
  const times = { a: [] as number[], b: [] as number[] };
  const bodies = { a: new Set<string>(), b: new Set<string>() };
  for (const label of interleaved(options.requests)) {
    const sample = await send(pair[label]);
    times[label].push(sample.ms);
    bodies[label].add(sample.body);
  }
  const a = summarize(times.a);
  const b = summarize(times.b);
  const diff = Math.abs(a.median - b.median);
  const tolerance = Math.max(options.maxDiffMs, options.maxDiffRatio * Math.max(a.median, b.median));
  const sameBodies = bodies.a.size === 1 && bodies.b.size === 1 && [...bodies.a][0] === [...bodies.b][0];
  return { pair, a, b, diff, tolerance, ok: diff <= tolerance, sameBodies };
}

/** The verification token of the newest message to `email`, from the console output or the SMTP server. */
type TokenReader = (email: string) => Promise<string>;

async function createAccounts(server: StandaloneServer, verificationToken: TokenReader) {
  const register = async (username: string) => {
    const email = `${username}@example.com`;
    const answer = await post(server.url, '/auth/register', { username, email, password: PASSWORD });
    if (answer.status !== 201) throw new Error(`could not register ${username}: ${answer.status} ${answer.body}`);
    return verificationToken(email);
  };
  const token = await register('timing-verified');
  const verified = await post(server.url, '/auth/verify-email', { token });
  if (verified.status !== 200) throw new Error(`could not verify: ${verified.status} ${verified.body}`);
  await register('timing-unverified');
}

function consoleTokens(server: StandaloneServer): TokenReader {
  return async (email) => {
    await server.waitFor(() => server.stdout.includes(`To: ${email}`), `the verification email to ${email}`);
    return server.lastLinkToken('verify-email');
  };
}

function smtpTokens(server: StandaloneServer, smtp: SmtpTestServer): TokenReader {
  return async (email) => {
    await server.waitFor(() => smtp.received.some((mail) => mail.rcptTo.includes(email)), `the email to ${email}`);
    const mail = smtp.received.filter((received) => received.rcptTo.includes(email)).at(-1)!;
    const token = /verify-email\?token=([A-Za-z0-9_-]{43})/.exec((await parseMail(mail)).text ?? '')?.[1];
    if (!token) throw new Error(`no verification link in the email to ${email}`);
    return token;
  };
}

/**
 * A server on a fresh folder whose mail goes through `transport`. For `slow` and `down` the accounts are made while
 * the SMTP server still answers at once; then it starts holding its replies, or is closed (its port then refuses).
 */
async function startServer(transport: Transport, options: Options) {
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-timing-'));
  let slow = false;
  const smtp =
    transport === 'console'
      ? undefined
      : await startSmtpServer({
          beforeReply: () => (slow ? new Promise((resolve) => setTimeout(resolve, options.smtpDelayMs)) : undefined),
        });
  const server = await StandaloneServer.start(cwd, {
    GATEHOUSE_DATABASE_URL: `sqlite:${join(cwd, 'timing.db')}`,
    GATEHOUSE_SECRET_KEY: randomBytes(48).toString('base64url'),
    // Hundreds of failed logins and resets from one address in a minute: exactly what the limits refuse.
    GATEHOUSE_RATE_LIMITS: 'off',
    ...(smtp ? { GATEHOUSE_SMTP_URL: smtp.url } : {}),
  });
  await createAccounts(server, smtp ? smtpTokens(server, smtp) : consoleTokens(server));
  if (transport === 'slow') slow = true;
  if (transport === 'down') await smtp!.close();
  return {
    server,
    async stop() {
      await server.stop('SIGTERM');
      if (transport === 'slow') await smtp!.close();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** One line of the table: pair, side, then three columns of milliseconds (or their headings). */
function row(pair: string, side: string, columns: (number | string)[]): string {
  const cells = columns.map((cell) => (typeof cell === 'number' ? cell.toFixed(2) : cell).padStart(8));
  return `${pair.padEnd(21)}${side.padEnd(18)}${cells.join('')}`;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const login = (label: string, username: string): Side => ({
    label,
    path: '/auth/login',
    body: { username, password: WRONG_PASSWORD },
    status: 401,
  });
  const mailRequest = (path: string, label: string, email: string): Side => ({
    label,
    path,
    body: { email },
    status: 200,
  });
  let registrations = 0;
  const register = (label: string, email: (n: number) => string): Side => ({
    label,
    path: '/auth/register',
    body: () => {
      registrations++;
      return { username: `timing-r${registrations}`, email: email(registrations), password: PASSWORD };
    },
    status: 201,
  });
  const freeEmail = register('free email', (n) => `timing-free-${n}@example.com`);
  const registerPairs: Pair[] = [
    { name: 'register, owned', a: freeEmail, b: register('owned email', () => 'timing-verified@example.com') },
    { name: 'register, claimed', a: freeEmail, b: register('claimed email', () => 'timing-unverified@example.com') },
  ];
  const reset = '/auth/password-reset/request';
  const resend = '/auth/resend-verification';
  const mailPairs = (transport: Transport): Pair[] => [
    {
      name: `reset, ${transport}`,
      a: mailRequest(reset, 'existing email', 'timing-verified@example.com'),
      b: mailRequest(reset, 'unknown email', 'timing-nobody@example.com'),
    },
    {
      name: `resend, ${transport}`,
      a: mailRequest(resend, 'unverified email', 'timing-unverified@example.com'),
      b: mailRequest(resend, 'unknown email', 'timing-nobody@example.com'),
    },
  ];

  console.log(
    `Gatehouse timing: ${options.requests} requests per side in random order, after ${options.warmup} warm-up each;`,
  );
  console.log(`node ${process.version}, SQLite, default argon2id (m=19456 KiB, t=2, p=1), rate limits off;`);
  console.log(
    `email: ${options.smtp.join(', ')} (slow: every DATA reply held ${options.smtpDelayMs} ms; down: connection refused).\n`,
  );
  console.log(row('pair', 'side', ['p10 ms', 'median', 'p90 ms']));
  let failed = false;
  for (const [index, transport] of options.smtp.entries()) {
    const { server, stop } = await startServer(transport, options);
    try {
      const pairs = [
        ...(index === 0
          ? [
              {
                name: 'login',
                a: login('unknown user', 'timing-nobody'),
                b: login('wrong password', 'timing-verified'),
              },
              ...registerPairs,
            ]
          : []),
        ...mailPairs(transport),
      ];
      for (const pair of pairs) {
        const result = await measure(server.url, pair, options);
        console.log(row(pair.name, pair.a.label, [result.a.p10, result.a.median, result.a.p90]));
        console.log(row('', pair.b.label, [result.b.p10, result.b.median, result.b.p90]));
        const verdict = result.ok ? 'ok' : 'TOO DIFFERENT';
        const answers = result.sameBodies ? 'byte-identical' : 'DIFFER';
        const difference = `${result.diff.toFixed(2)} ms (tolerance ${result.tolerance.toFixed(2)} ms)`;
        console.log(`${''.padEnd(21)}median difference ${difference}: ${verdict}; answers ${answers}\n`);
        if (!result.ok || !result.sameBodies) failed = true;
      }
    } finally {
      await stop();
    }
  }
  agent.destroy();
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`timing: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
