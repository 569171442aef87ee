import { expect } from 'chai';
import path from 'node:path';
import { sql } from 'kysely';
import request, { type Response } from 'supertest';
import { StandaloneServer } from '../server/standalone-server';
import { makeTempFolder } from '../stores/temp-folder';
import { requireService, serviceUrl } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { expectError } from './support/answers';
import { postgresStore } from './support/postgres-store';
import { bearer, openSecurityApp, OTHER_PASSWORD, PASSWORD, PREFIX, SecurityApp } from './support/security-app';
import { dumpTables, execute, injectFailure } from './support/sqlite-file';

type Step = ['insert' | 'update' | 'delete', string];

describe('Security checklist: Storage and faults', () => {
  let t: SecurityApp;
  beforeEach(async () => {
    t = await openSecurityApp();
  });
  afterEach(() => t.close());

  it('D1: the canonical username, and the email of verified users, are unique in the database itself', async () => {
    await t.createUser('alice', 'alice@example.com');
    expectError(await t.register('ALICE', 'other@example.com'), 409, 'invalid_username');
    const insert = (usernameKey: string, emailKey: string) => () =>
      execute(
        t.filename,
        'insert into users (id, username, username_key, email, email_key, verified, created_at, updated_at) ' +
          `values (?, ?, ?, ?, ?, ${verified}, 0, 0)`,
        `id-${usernameKey}-${emailKey}`,
        usernameKey,
        usernameKey,
        emailKey,
        emailKey,
      );
    let verified = 0;
    expect(insert('alice', 'new@example.com')).to.throw(/UNIQUE constraint failed: users.username_key/);
    insert('claimant', 'alice@example.com')(); // an unverified registration of an owned address owns nothing
    verified = 1;
    expect(insert('newcomer', 'alice@example.com')).to.throw(/UNIQUE constraint failed: users.email_key/);
    insert('newcomer', 'new@example.com')();
  });

  it('D2: each multi-step operation is one transaction: a failure injected at any step leaves the state as it was', async () => {
    const alice = await t.loginNewUser('alice');
    await t.login('alice');
    await t.accounts().access.createRole('admin');
    await t.accounts().access.grantRole('alice', 'admin');
    await t.register('vera');
    const verification = t.sender.lastToken('sendVerification', 'vera@example.com');
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const reset = t.sender.lastToken('sendPasswordReset');

    const operations: { name: string; steps: Step[]; status: number; run: () => Promise<Response> }[] = [
      {
        name: 'register',
        steps: [
          ['insert', 'users'],
          ['insert', 'tokens'],
          ['insert', 'outbox'],
        ],
        status: 500,
        run: () =>
          t.http
            .post(`${PREFIX}/register`)
            .send({ username: 'mallory', email: 'mallory@example.com', password: PASSWORD }),
      },
      {
        name: 'verify',
        steps: [
          ['delete', 'tokens'],
          ['update', 'users'],
          ['insert', 'outbox'],
        ],
        status: 500,
        run: () => t.http.post(`${PREFIX}/verify-email`).send({ token: verification }),
      },
      {
        name: 'reset confirm',
        steps: [
          ['delete', 'tokens'],
          ['update', 'users'],
          ['delete', 'sessions'],
          ['insert', 'outbox'],
        ],
        status: 500,
        run: () => t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: reset, new_password: OTHER_PASSWORD }),
      },
      {
        name: 'password change',
        steps: [
          ['update', 'users'],
          ['delete', 'sessions'],
          ['delete', 'tokens'],
          ['insert', 'outbox'],
        ],
        status: 500,
        run: () =>
          t.http
            .post(`${PREFIX}/password/change`)
            .set(bearer(alice))
            .send({ old_password: PASSWORD, new_password: OTHER_PASSWORD }),
      },
      {
        name: 'account deletion',
        steps: [
          ['insert', 'outbox'],
          ['delete', 'users'],
          ['delete', 'sessions'],
          ['delete', 'tokens'],
          ['delete', 'user_roles'],
        ],
        status: 500,
        run: () => t.http.delete(`${PREFIX}/account`).set(bearer(alice)).send({ password: PASSWORD }),
      },
      // Answered before the work, so the answer stays 200; the work itself must still be all or nothing.
      {
        name: 'resend verification',
        steps: [
          ['delete', 'tokens'],
          ['insert', 'tokens'],
          ['insert', 'outbox'],
        ],
        status: 200,
        run: () => t.http.post(`${PREFIX}/resend-verification`).send({ email: 'vera@example.com' }),
      },
      {
        name: 'reset request',
        steps: [
          ['delete', 'tokens'],
          ['insert', 'tokens'],
          ['insert', 'outbox'],
        ],
        status: 200,
        run: () => t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }),
      },
    ];
    const before = dumpTables(t.filename);
    for (const operation of operations) {
      for (const [event, table] of operation.steps) {
        const what = `${operation.name}, failing at ${event} on ${table}`;
        const errorsBefore = t.logger.errors().length;
        const heal = injectFailure(t.filename, event, table);
        try {
          const answer = await operation.run();
          await t.drain();
          expect(answer.status, `${what}: ${answer.text}`).to.equal(operation.status);
        } finally {
          heal();
        }
        // The failure was met (a 500, or a logged error for work done after the answer), and undid everything.
        expect(t.logger.errors().length, `${what}: the failure was met`).to.be.greaterThan(errorsBefore);
        expect(dumpTables(t.filename), what).to.deep.equal(before);
      }
    }
  });

  it('D3: logs carry security events with user id, IP and outcome, and never a secret', async () => {
    await t.createUser('alice', 'alice.secret@example.com');
    const id = execute(t.filename, 'select id from users')[0].id;
    await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: OTHER_PASSWORD }).expect(401);
    const session = await t.login('alice');
    const events = t.logger.lines
      .map((line) => line.fields as Record<string, unknown>)
      .filter((fields) => fields.event === 'login');
    expect(events.map((fields) => [fields.outcome, fields.userId])).to.deep.equal([
      ['wrong_password', id],
      ['success', id],
    ]);
    for (const fields of events) expect(fields.ip).to.match(/127\.0\.0\.1/);
    const log = t.logger.text();
    for (const secret of [PASSWORD, OTHER_PASSWORD, session, 'alice.secret', t.sender.lastToken('sendVerification')]) {
      expect(log).not.to.include(secret);
    }
    expect(log).not.to.include('$argon2');
  });

  it('D4: SQLite runs with WAL, synchronous=FULL, busy_timeout and foreign keys, and an acknowledged registration and sign-in survive kill -9', async function () {
    this.timeout(30_000);
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(t.store.db)).rows[0] as object)[0];
    expect(await pragma('journal_mode')).to.equal('wal');
    expect(await pragma('synchronous')).to.equal(2);
    expect(await pragma('busy_timeout')).to.equal(5000);
    expect(await pragma('foreign_keys')).to.equal(1);

    const cwd = makeTempFolder('gatehouse-kill-');
    const server = await StandaloneServer.start(cwd.path, {
      GATEHOUSE_SECRET_KEY: 'kill-test-secret-key-0123456789abcdef-0123456789',
    });
    try {
      await request(server.url)
        .post('/auth/register')
        .send({ username: 'survivor', email: 'survivor@example.com', password: PASSWORD })
        .expect(201);
      await server.waitFor(() => server.stdout.includes('verify-email?token='), 'the verification link');
      await request(server.url)
        .post('/auth/verify-email')
        .send({ token: server.lastLinkToken('verify-email') })
        .expect(200);
      // A sign-in commits without waiting for the disk (sql-user-store.ts, UNFLUSHED): that survives the process dying.
      await request(server.url).post('/auth/login').send({ username: 'survivor', password: PASSWORD }).expect(200);
      await server.stop('SIGKILL');
      const tables = dumpTables(path.join(cwd.path, 'data', 'gatehouse.db'));
      expect(tables.get('users')!.map((row) => [row.username, row.verified])).to.deep.equal([['survivor', 1]]);
      expect(tables.get('sessions')!).to.have.length(1);
    } finally {
      await server.stop('SIGKILL');
      cwd.remove();
    }
  });

  it('C1: concurrent registrations of one username make one row, of one email a claim each, and no 5xx', async () => {
    const names = ['carol', 'Carol', 'CAROL', 'cArOl', 'caroL', 'CaRoL', 'carOL', 'CARol'];
    const byName = await Promise.all(
      names.map((username, i) =>
        t.http.post(`${PREFIX}/register`).send({ username, email: `carol${i}@example.com`, password: PASSWORD }),
      ),
    );
    expect(byName.map((answer) => answer.status).sort()).to.deep.equal([201, ...Array(names.length - 1).fill(409)]);

    const emails = [
      'dave@example.com',
      'DAVE@example.com',
      'Dave@Example.com',
      'dave@EXAMPLE.COM',
      'ｄａｖｅ@example.com',
      'DaVe@example.com',
    ];
    const byEmail = await Promise.all(
      emails.map((email, i) =>
        t.http.post(`${PREFIX}/register`).send({ username: `dave${i}`, email, password: PASSWORD }),
      ),
    );
    expect(byEmail.map((answer) => answer.status)).to.deep.equal(emails.map(() => 201));
    await t.drain();
    expect(execute(t.filename, "select count(*) as n from users where username_key = 'carol'")).to.deep.equal([
      { n: 1 },
    ]);
    const claims = "select count(*) as n from users where email_key = 'dave@example.com' and verified = 0";
    expect(execute(t.filename, claims)).to.deep.equal([{ n: emails.length }]);
    // Confirming them all at once leaves one owner and no other registration of the address.
    const toDave = t.sender.of('sendVerification').filter((mail) => mail.email.toLowerCase() === 'dave@example.com');
    expect(toDave).to.have.length(emails.length);
    const confirms = await Promise.all(
      toDave.map(({ token }) => t.http.post(`${PREFIX}/verify-email`).send({ token })),
    );
    expect(confirms.map((answer) => answer.status).sort()).to.deep.equal([200, ...Array(emails.length - 1).fill(400)]);
    expect(execute(t.filename, "select verified from users where email_key = 'dave@example.com'")).to.deep.equal([
      { verified: 1 },
    ]);
  });

  it('C2: of concurrent confirms of one token, exactly one succeeds', async () => {
    await t.register('vera');
    const verification = t.sender.lastToken('sendVerification');
    const verifies = await Promise.all(
      Array.from({ length: 10 }, () => t.http.post(`${PREFIX}/verify-email`).send({ token: verification })),
    );
    expect(verifies.map((answer) => answer.status).sort()).to.deep.equal([200, ...Array(9).fill(400)]);

    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'vera@example.com' }).expect(200);
    await t.drain();
    const token = t.sender.lastToken('sendPasswordReset');
    const passwords = Array.from({ length: 10 }, (_, i) => `racing new password number ${i}`);
    const confirms = await Promise.all(
      passwords.map((new_password) => t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password })),
    );
    const winners = confirms.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
    expect(winners).to.have.length(1);
    for (const answer of confirms) expect(answer.status).to.be.oneOf([200, 400]);
    for (const [i, password] of passwords.entries()) {
      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'vera', password });
      expect(login.status, password).to.equal(i === winners[0] ? 200 : 401);
    }
  });

  it('C5: a PostgreSQL restart crashes nothing: a quick 503 with Retry-After during the outage, then recovery by itself', async function () {
    this.timeout(30_000);
    await requireService(this, 'postgres');
    const server = new URL(serviceUrl('postgres'));
    const proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port) || 5432 });
    const throughProxy = (url: string) => {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      return proxied.toString();
    };
    const pg = await openSecurityApp({ openStore: () => postgresStore('security_c5', throughProxy) });
    try {
      const session = await pg.loginNewUser('alice');
      await proxy.cut();
      const calls: [string, () => Promise<Response>][] = [
        ['me', () => pg.http.get(`${PREFIX}/me`).set(bearer(session))],
        ['login', () => pg.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD })],
        [
          'register',
          () =>
            pg.http.post(`${PREFIX}/register`).send({ username: 'bob', email: 'bob@example.com', password: PASSWORD }),
        ],
        ['logout', () => pg.http.post(`${PREFIX}/logout`).set(bearer(session))],
      ];
      for (const [name, call] of calls) {
        const started = Date.now();
        const answer = await call();
        expectError(answer, 503, 'service_unavailable');
        expect(answer.headers['retry-after'], name).to.match(/^[1-9]\d*$/);
        expect(Date.now() - started, `${name}: ms to answer`).to.be.below(2_500);
      }
      await proxy.restore();
      await pg.http.get(`${PREFIX}/me`).set(bearer(session)).expect(200);
      await pg.login('alice');
      expect(
        pg.logger
          .errors()
          .map((line) => line.message)
          .join(' '),
      ).not.to.match(/postgres:\/\//);
    } finally {
      await proxy.restore();
      await pg.close();
      await proxy.close();
    }
  });
});
