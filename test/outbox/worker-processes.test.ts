import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { EmailLinks, SmtpEmailSender } from '../../src/email';
import { MessageComposer } from '../../src/services/message-composer';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import { TokenSealer } from '../../src/services/token-sealer';
import { AccountService } from '../../src/services/account-service';
import { silentLogger } from '../../src/services/logger';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { messageIdOf, parseMail, smtpError, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { makeTempFolder } from '../stores/temp-folder';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import { CHEAP_HASHING } from '../support/fixtures';
import { enqueue } from '../support/store-writes';

const CLI = join(__dirname, '../../src/cli/main.js');
const SECRET = 'worker-process-test-secret-0123456789-abcdef';
const FROM = 'Gatehouse <no-reply@example.com>';
const PUBLIC_URL = 'https://id.example.com';
const PASSWORD = 'violet staircase 42 umbrella';

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `gatehouse worker` in a child process, its stderr collected. */
class WorkerProcess {
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private constructor(readonly child: ChildProcess) {
    child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }
  static start(env: Record<string, string>): WorkerProcess {
    return new WorkerProcess(
      spawn(process.execPath, [CLI, 'worker'], {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
  }
}

describe('gatehouse worker processes', function () {
  this.timeout(60_000);

  // The SMTP server has the whole message and holds its reply; the worker is killed with SIGKILL meanwhile. Either
  // the server then refuses it (it never took the message: the next worker sends it, once), or it had already taken
  // it (the duplicate case: the next worker cannot know, and sends it again, with the same Message-ID).
  for (const { serverTookIt, copies } of [
    { serverTookIt: false, copies: 1 },
    { serverTookIt: true, copies: 2 },
  ]) {
    const title = serverTookIt
      ? 'the server had taken the message when the worker died: sent again, a recognisable duplicate'
      : 'killed while the server holds the reply to DATA: nothing lost, sent once by the next worker';
    it(title, async () => {
      const folder = makeTempFolder('gatehouse-worker-kill-');
      let smtp: SmtpTestServer | undefined;
      const workers: WorkerProcess[] = [];
      const store = await SqliteUserStore.open({ filename: join(folder.path, 'gatehouse.db') });
      try {
        let held = 0;
        let release!: () => void;
        const releaseHeld = new Promise<void>((resolve) => (release = resolve));
        smtp = await startSmtpServer({
          keepBeforeReply: serverTookIt,
          beforeReply: async () => {
            if (++held === 1) await releaseHeld;
          },
          // The held attempt is refused once released (the client is gone by then anyway).
          rejectData: () => (!serverTookIt && held === 1 ? smtpError(451, '4.3.0 lost the client') : undefined),
        });
        // The web side: queues mail, delivers none (GATEHOUSE_OUTBOX_WORKER=off, as beside `gatehouse worker`).
        const accounts = new AccountService({
          store,
          sender: new SmtpEmailSender({
            url: smtp.url,
            from: FROM,
            links: new EmailLinks({ publicUrl: PUBLIC_URL, prefix: '/auth' }),
          }),
          options: { secretKey: SECRET, hashing: CHEAP_HASHING, outbox: { worker: false } },
          logger: silentLogger,
        });
        await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
        const [queued] = await store.outbox.list();
        expect(queued.status).to.equal('pending');

        const env = {
          GATEHOUSE_DATABASE_URL: `sqlite:${join(folder.path, 'gatehouse.db')}`,
          GATEHOUSE_SECRET_KEY: SECRET,
          GATEHOUSE_SMTP_URL: smtp.url,
          GATEHOUSE_EMAIL_FROM: FROM,
          GATEHOUSE_PUBLIC_URL: PUBLIC_URL,
          GATEHOUSE_OUTBOX_LEASE: '1s',
          GATEHOUSE_OUTBOX_POLL_INTERVAL: '100ms',
        };
        workers.push(WorkerProcess.start(env));
        await waitFor(() => held === 1, 'the first worker to send DATA');
        workers[0].child.kill('SIGKILL');
        expect((await workers[0].exited).signal).to.equal('SIGKILL');
        release();

        // Still claimed by the dead worker: nothing happens until its lease runs out, then the next worker sends it.
        expect((await store.outbox.list())[0]).to.include({ status: 'pending', claimed: true, attempts: 1 });
        workers.push(WorkerProcess.start(env));
        await waitFor(async () => (await store.outbox.list())[0].status === 'sent', 'the next worker to send it').catch(
          (error) => {
            throw new Error(`${error.message}\n${workers[1].stderr}`);
          },
        );
        await new Promise((resolve) => setTimeout(resolve, 300));

        const [entry] = await store.outbox.list();
        expect([entry.attempts, entry.hasToken]).to.deep.equal([2, false]);
        expect(smtp.received).to.have.length(copies);
        expect(smtp.received.map(messageIdOf)).to.deep.equal(Array(copies).fill(`<${queued.id}@example.com>`));
        const tokens = await Promise.all(
          smtp.received.map(async (mail) => /token=([A-Za-z0-9_-]{43})/.exec((await parseMail(mail)).text ?? '')![1]),
        );
        expect(new Set(tokens).size, 'every copy carries the same link').to.equal(1);
        await accounts.verifyEmail(tokens[0]);

        workers[1].child.kill('SIGTERM');
        expect((await workers[1].exited).code, 'a graceful stop').to.equal(0);
        expect(workers[1].stderr).to.include('"outcome":"sent"').and.not.include('alice@example.com');
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL');
        await store.close();
        await smtp?.close();
        folder.remove();
      }
    });
  }
});

describeWithService('postgres', 'two workers on one PostgreSQL database', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  const stores: PostgresUserStore[] = [];
  let smtp: SmtpTestServer;
  const senders: SmtpEmailSender[] = [];

  before(async () => {
    database = await createTestDatabase('outbox_workers');
    smtp = await startSmtpServer();
  });
  after(async () => {
    for (const sender of senders) await sender.close();
    for (const store of stores) await store.close();
    await smtp?.close();
    await database?.drop();
  });

  it('deliver each message exactly once, sharing the work', async () => {
    const open = async () => {
      const store = await PostgresUserStore.open({ connectionString: database.url });
      stores.push(store);
      return store;
    };
    const [first, second, queueing] = [await open(), await open(), await open()];
    const created = await queueing.transaction((tx) =>
      tx.users.create(
        {
          id: 'user-1',
          username: 'alice',
          usernameKey: 'alice',
          email: 'alice@example.com',
          emailKey: 'alice@example.com',
          passwordHash: 'x',
          createdAt: new Date(),
        },
        { tokenHash: 'h', userId: 'user-1', purpose: 'verify_email', expiresAt: new Date(Date.now() + 3_600_000) },
      ),
    );
    expect(created.ok).to.equal(true);
    const composer = new MessageComposer(new TokenSealer(SECRET), 3_600_000);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const message =
        i % 3 === 0
          ? composer.link('passwordReset', new Date(), `token-${i}`.padEnd(43, 'x'), new Date(Date.now() + 3_600_000))
          : composer.notice('passwordChanged', new Date());
      await enqueue(queueing, 'user-1', message);
      ids.push(message.id);
    }

    const delivered = new Map<string, number>();
    const workers = [first, second].map((store, index) => {
      const sender = new SmtpEmailSender({
        url: smtp.url,
        from: FROM,
        links: new EmailLinks({ publicUrl: PUBLIC_URL }),
      });
      senders.push(sender);
      const counting = new Proxy(sender, {
        get: (target, property, receiver) => {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            delivered.set(`worker-${index}`, (delivered.get(`worker-${index}`) ?? 0) + 1);
            return value.apply(target, args);
          };
        },
      });
      return new OutboxWorker({
        store,
        sender: counting,
        secretKey: SECRET,
        options: { batchSize: 3, pollIntervalMs: 10 },
      });
    });
    for (const worker of workers) worker.start();
    try {
      await waitFor(
        async () => (await queueing.outbox.list({ status: 'pending' })).length === 0,
        'the outbox to empty',
        30_000,
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(smtp.received).to.have.length(60);
    expect(smtp.received.map(messageIdOf).sort()).to.deep.equal(ids.map((id) => `<${id}@example.com>`).sort());
    const entries = await queueing.outbox.list({ limit: 100 });
    expect(entries.every((entry) => entry.status === 'sent' && entry.attempts === 1)).to.equal(true);
    expect([...delivered.values()].reduce((a, b) => a + b, 0)).to.equal(60);
    expect(delivered.size, `both workers sent some: ${JSON.stringify([...delivered])}`).to.equal(2);
  });
});
