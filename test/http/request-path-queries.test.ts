import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, type LogEvent } from 'kysely';
import { Authorized, Get, JsonController, useKoaServer } from 'routing-controllers';
import request from 'supertest';
import { Service } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { accountRoutes } from '../../src/app/account-routes';
import { createApp } from '../../src/server/create-app';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { generousRateLimits } from '../support/generous-rate-limits';
import { HOUR, ManualClock } from '../support/manual-clock';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { bearer, PASSWORD, TEST_SECRET } from '../support/test-app';
import { CHEAP_HASHING } from '../support/fixtures';

@Service()
@JsonController('/reports')
class ReportsController {
  @Authorized('perm:reports.read')
  @Get('/')
  list() {
    return { reports: [] };
  }
}

/**
 * DESIGN.md: "Session validation is one indexed read joining session and user; it is the hot path of every protected
 * request." Counted here on a real SQLite file through Kysely's query log, and checked with EXPLAIN QUERY PLAN.
 */
describe('HTTP: the queries of the request path (SQLite)', () => {
  let folder: string;
  let store: SqliteUserStore;
  let queries: CompiledQuery[];
  let clock: ManualClock;
  let http: ReturnType<typeof request>;
  let token: string;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-queries-'));
    queries = [];
    const log = (event: LogEvent) => {
      if (event.level === 'query') queries.push(event.query);
    };
    store = await SqliteUserStore.open({ filename: join(folder, 'gatehouse.db'), log });
    clock = new ManualClock(Date.now());
    const sender = new RecordingEmailSender();
    const app = createApp({
      store,
      sender,
      clock,
      logger: silentLogger,
      options: { secretKey: TEST_SECRET, hashing: CHEAP_HASHING },
      rateLimits: generousRateLimits(),
    });
    useKoaServer(app, { ...accountRoutes(), controllers: [ReportsController] });
    http = request(app.callback());

    const accounts = resolveAccountService();
    await http
      .post('/auth/register')
      .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
      .expect(201);
    await accounts.drain();
    await http
      .post('/auth/verify-email')
      .send({ token: sender.lastToken('sendVerification', 'alice@example.com') })
      .expect(200);
    await accounts.access.createRole('reader');
    await accounts.access.createPermission('reports.read');
    await accounts.access.grantPermission('reader', 'reports.read');
    await accounts.access.grantRole('alice', 'reader');
    token = (await http.post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(200)).body
      .access_token;
    await accounts.drain();
    queries = [];
  });

  afterEach(async () => {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The plan SQLite picks for a logged query: each line must find its rows through an index, none by a scan. */
  async function expectIndexed(query: CompiledQuery): Promise<void> {
    const plan = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
    );
    const details = plan.rows.map((row) => row.detail);
    expect(details, query.sql).to.not.be.empty;
    const shown = `${query.sql}\n${details.join('\n')}`;
    // Lines such as "CORRELATED SCALAR SUBQUERY 1" only frame the others; every table access must be a SEARCH.
    for (const detail of details) expect(detail, shown).to.not.match(/^SCAN/);
    const accesses = details.filter((detail) => /^SEARCH/.test(detail));
    expect(accesses, shown).to.not.be.empty;
    for (const access of accesses) expect(access, shown).to.match(/USING (COVERING )?(INDEX|PRIMARY KEY)/);
  }

  const writes = () => queries.filter((query) => !/^\s*select/i.test(query.sql));

  it('GET /me costs exactly one read, through indexes, and no write', async () => {
    for (let i = 0; i < 3; i++) {
      queries = [];
      await http.get('/auth/me').set(bearer(token)).expect(200);
      expect(
        queries.map((query) => query.sql),
        `request ${i + 1}`,
      ).to.have.length(1);
      expect(queries[0].sql).to.match(/^select /i);
      await expectIndexed(queries[0]);
    }
  });

  it('the idle refresh writes once an interval, not once a request', async () => {
    clock.advance(HOUR + 1);
    await http.get('/auth/me').set(bearer(token)).expect(200);
    expect(queries.filter((query) => /^select /i.test(query.sql))).to.have.length(1);
    expect(writes().some((query) => /^update "sessions" set "last_seen_at"/i.test(query.sql))).to.equal(true);

    queries = [];
    await http.get('/auth/me').set(bearer(token)).expect(200);
    expect(queries).to.have.length(1);
    expect(writes()).to.deep.equal([]);
  });

  it("a host route behind @Authorized('perm:...') costs one read, the session and the permission together, indexed", async () => {
    await http.get('/reports').set(bearer(token)).expect(200);
    expect(queries).to.have.length(1);
    expect(queries[0].sql).to.match(/^select /i);
    expect(writes()).to.deep.equal([]);
    // A copy: the plans asked for below are logged too.
    for (const query of [...queries]) await expectIndexed(query);
  });

  it('a rejected token costs one read and no write', async () => {
    await http
      .get('/auth/me')
      .set(bearer('A'.repeat(43)))
      .expect(401);
    expect(queries).to.have.length(1);
    await expectIndexed(queries[0]);
  });
});
