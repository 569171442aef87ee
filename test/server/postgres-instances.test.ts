import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestDatabase, TestDatabase } from '../support/postgres-database';
import { describeWithService, serviceUrl } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { freePort } from '../support/free-port';
import { StandaloneServer } from './standalone-server';

const PASSWORD = 'violet staircase 42 umbrella';
const NEW_PASSWORD = 'amber lighthouse 17 teapot';
const SECRET = 'instances-test-secret-key-0123456789-abcdefgh';

describeWithService('postgres', 'standalone servers on PostgreSQL', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let cwd: string;
  let servers: StandaloneServer[] = [];

  beforeEach(async () => {
    database = await createTestDatabase('instances');
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-instances-'));
  });
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    servers = [];
    rmSync(cwd, { recursive: true, force: true });
    await database.drop();
  });

  async function start(count: number, databaseUrl = database.url): Promise<StandaloneServer[]> {
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        StandaloneServer.start(cwd, { GATEHOUSE_DATABASE_URL: databaseUrl, GATEHOUSE_SECRET_KEY: SECRET }),
      ),
    );
    servers.push(...started);
    return started;
  }

  const me = (server: StandaloneServer, token: string) =>
    request(server.url).get('/auth/me').set('Authorization', `Bearer ${token}`);

  async function login(server: StandaloneServer, username: string, password = PASSWORD): Promise<string> {
    const answer = await request(server.url).post('/auth/login').send({ username, password }).expect(200);
    return answer.body.access_token;
  }

  /** Registers through `via`, verifies through `verifyVia` (the link is printed by the instance that sent it). */
  async function signUp(via: StandaloneServer, verifyVia: StandaloneServer, username: string): Promise<void> {
    await request(via.url)
      .post('/auth/register')
      .send({ username, email: `${username}@example.com`, password: PASSWORD })
      .expect(201);
    await via.waitFor(() => via.stdout.includes(`To: ${username}@example.com`), 'the verification email');
    const token = via.lastLinkToken('verify-email');
    await request(verifyVia.url).post('/auth/verify-email').send({ token }).expect(200);
  }

  it('two instances started together share every session: what one does, the other sees at once', async () => {
    const [a, b] = await start(2);
    await signUp(a, b, 'alice');

    // A session created through one is valid on the other.
    const first = await login(a, 'alice');
    await me(b, first).expect(200, { username: 'alice', email: 'alice@example.com', verified: true });

    // Logout through one.
    const second = await login(b, 'alice');
    await request(b.url).post('/auth/logout').set('Authorization', `Bearer ${first}`).expect(200);
    await me(a, first).expect(401);
    await me(a, second).expect(200);

    // Logout-all through one.
    const third = await login(a, 'alice');
    await request(a.url).post('/auth/logout-all').set('Authorization', `Bearer ${second}`).expect(200);
    await me(b, second).expect(401);
    await me(b, third).expect(401);

    // Password change through one.
    const fourth = await login(b, 'alice');
    const fifth = await login(a, 'alice');
    await request(a.url)
      .post('/auth/password/change')
      .set('Authorization', `Bearer ${fourth}`)
      .send({ old_password: PASSWORD, new_password: NEW_PASSWORD })
      .expect(200);
    await me(b, fourth).expect(401);
    await me(b, fifth).expect(401);
    await request(b.url).post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(401);
    const sixth = await login(b, 'alice', NEW_PASSWORD);

    // Deletion through one.
    const seventh = await login(a, 'alice', NEW_PASSWORD);
    await request(b.url)
      .delete('/auth/account')
      .set('Authorization', `Bearer ${sixth}`)
      .send({ password: NEW_PASSWORD })
      .expect(200);
    await me(a, seventh).expect(401);
    await request(a.url).post('/auth/login').send({ username: 'alice', password: NEW_PASSWORD }).expect(401);
  });

  it('two registrations of one address confirmed at once through two instances: exactly one owner, every round', async () => {
    const [a, b] = await start(2);
    /** The token of the verification mail that greets `username`, whichever instance's worker printed it. */
    const linkOf = async (username: string) => {
      const printed = () => `${a.stdout}\n${b.stdout}`;
      const pattern = new RegExp(`Hello ${username},[\\s\\S]*?/verify-email\\?token=([A-Za-z0-9_-]{43})`);
      await a.waitFor(() => pattern.test(printed()), `the verification email of ${username}`);
      return pattern.exec(printed())![1];
    };
    for (let round = 0; round < 5; round++) {
      const email = `contested${round}@example.com`;
      const [first, second] = [`early${round}`, `late${round}`];
      await request(a.url).post('/auth/register').send({ username: first, email, password: PASSWORD }).expect(201);
      await request(b.url).post('/auth/register').send({ username: second, email, password: NEW_PASSWORD }).expect(201);
      const [firstLink, secondLink] = [await linkOf(first), await linkOf(second)];

      const answers = await Promise.all([
        request(a.url).post('/auth/verify-email').send({ token: firstLink }),
        request(b.url).post('/auth/verify-email').send({ token: secondLink }),
      ]);
      expect(answers.map((answer) => answer.status).sort(), `round ${round}`).to.deep.equal([200, 400]);
      const [winner, loser] = answers[0].status === 200 ? [first, second] : [second, first];
      const passwordOf = (username: string) => (username === first ? PASSWORD : NEW_PASSWORD);
      const session = await login(b, winner, passwordOf(winner));
      await me(a, session).expect(200, { username: winner, email, verified: true });
      await request(a.url)
        .post('/auth/login')
        .send({ username: loser, password: passwordOf(loser) })
        .expect(401);
    }
  });

  it('a reset link sent by one instance works on the other, once, and ends the sessions everywhere', async () => {
    const [a, b] = await start(2);
    await signUp(b, a, 'bob');
    const session = await login(a, 'bob');

    await request(a.url).post('/auth/password-reset/request').send({ email: 'bob@example.com' }).expect(200);
    await a.waitFor(() => /password-reset\?token=/.test(a.stdout), 'the reset email');
    const token = a.lastLinkToken('password-reset');
    const confirm = (server: StandaloneServer) =>
      request(server.url).post('/auth/password-reset/confirm').send({ token, new_password: NEW_PASSWORD });

    const answers = await Promise.all([confirm(b), confirm(a), confirm(b)]);
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400, 400]);
    await me(b, session).expect(401);
    await login(a, 'bob', NEW_PASSWORD);
  });

  it('registrations of one username through both at once: exactly one is created', async () => {
    const [a, b] = await start(2);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request((i % 2 ? a : b).url)
          .post('/auth/register')
          .send({ username: i % 2 ? 'Carol' : 'carol', email: `carol${i}@example.com`, password: PASSWORD }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([201, ...Array(9).fill(409)]);
  });

  it('stops at start with one line, and no password, when the database cannot be reached', async () => {
    const url = `postgres://gatehouse:hunter2-secret@127.0.0.1:${await freePort()}/accounts`;
    const env = { GATEHOUSE_DATABASE_URL: url, GATEHOUSE_SECRET_KEY: SECRET };
    const { code, stderr } = await StandaloneServer.run(cwd, env);
    expect(code).to.equal(1);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(/could not start: PostgreSQL is unreachable: .*ECONNREFUSED/);
    expect(stderr).to.not.include('hunter2');
  });

  describe('when the database goes away', () => {
    let proxy: TcpProxy;
    beforeEach(async () => {
      const server = new URL(serviceUrl('postgres'));
      proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port) || 5432 });
    });
    afterEach(() => proxy.close());

    function proxiedUrl(): string {
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      return url.toString();
    }

    async function expectUnavailable(answer: Promise<request.Response>, withinMs: number): Promise<void> {
      const started = Date.now();
      const response = await answer;
      const took = Date.now() - started;
      expect(response.status).to.equal(503);
      expect(response.headers['content-type']).to.match(/^application\/json/);
      expect(response.headers['retry-after']).to.match(/^\d+$/);
      expect(response.body.detail.code).to.equal('service_unavailable');
      expect(JSON.stringify(response.body)).to.not.match(/ECONN|PostgreSQL|127\.0\.0\.1|postgres/i);
      expect(took, `answered within ${withinMs} ms`).to.be.below(withinMs);
    }

    it('answers 503 JSON at once while it is down, stays up, and serves again by itself when it is back', async () => {
      const [server] = await start(1, proxiedUrl());
      await signUp(server, server, 'dave');
      const session = await login(server, 'dave');

      await proxy.cut();
      await expectUnavailable(me(server, session), 1_000);
      const post = (path: string, body: object) => request(server.url).post(`/auth${path}`).send(body);
      await expectUnavailable(post('/login', { username: 'dave', password: PASSWORD }), 2_000);
      const registration = { username: 'erin', email: 'erin@example.com', password: PASSWORD };
      await expectUnavailable(post('/register', registration), 1_000);
      expect(server.running).to.equal(true);

      await proxy.restore();
      await me(server, session).expect(200);
      await login(server, 'dave');
      // The lost idle connection's line reaches us through the child's stderr pipe, which a loaded machine may
      // deliver after the answers above: wait for it rather than read it once (seen failing once in CI).
      const deadline = Date.now() + 5_000;
      while (!server.stderr.includes('"event":"database"') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(server.stderr).to.include('"event":"database"');
    });

    it('answers 503 within the connection timeout when the database accepts but does not answer', async () => {
      const [server] = await start(1, proxiedUrl());
      await signUp(server, server, 'frank');
      const session = await login(server, 'frank');

      await proxy.hang();
      await expectUnavailable(me(server, session), 3_500);
      expect(server.running).to.equal(true);
      await proxy.restore();
      await me(server, session).expect(200);
    });
  });
});
