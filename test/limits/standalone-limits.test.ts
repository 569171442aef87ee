import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DEFAULT_LIMITS } from '../../src/limits/rate-limit-options';
import { StandaloneServer } from '../server/standalone-server';
import { makeTempFolder } from '../stores/temp-folder';
import { describeWithService, serviceUrl } from '../support/services';
import { expectRateLimited } from './expect-rate-limited';

const SECRET = 'standalone-limits-secret-0123456789abcdef-0123';
const body = { username: 'nobody', password: 'wrong password here' };

describe('standalone server: rate limits from the environment', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof makeTempFolder>;
  const servers: StandaloneServer[] = [];

  beforeEach(() => {
    folder = makeTempFolder('gatehouse-limits-');
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop('SIGKILL');
    folder.remove();
  });

  async function start(env: Record<string, string>): Promise<StandaloneServer> {
    const server = await StandaloneServer.start(folder.path, { GATEHOUSE_SECRET_KEY: SECRET, ...env });
    servers.push(server);
    return server;
  }

  it('limits with no configuration at all, in memory', async () => {
    const server = await start({});
    expect(server.stderr).to.match(/"event":"listening".*"rateLimits":"memory"/);
    for (let i = 0; i < DEFAULT_LIMITS['login.ip'].points; i++) {
      await request(server.url)
        .post('/auth/login')
        .send({ ...body, username: `nobody${i}` })
        .expect(401);
    }
    expectRateLimited(await request(server.url).post('/auth/login').send(body), 60);
  });

  it('warns at start when GATEHOUSE_RATE_LIMITS=off, and limits nothing', async () => {
    const server = await start({ GATEHOUSE_RATE_LIMITS: 'off' });
    expect(server.stderr).to.match(/rate limits are OFF/);
    expect(server.stderr).to.match(/"event":"listening".*"rateLimits":"off"/);
    for (let i = 0; i < 40; i++) await request(server.url).post('/auth/login').send(body).expect(401);
  });

  it('believes X-Forwarded-For from GATEHOUSE_TRUSTED_PROXIES only', async () => {
    const env = { GATEHOUSE_RATE_LIMITS: 'login.ip=1/1m' };
    const direct = await start(env);
    await request(direct.url).post('/auth/login').set('X-Forwarded-For', '198.51.100.1').send(body).expect(401);
    expectRateLimited(
      await request(direct.url).post('/auth/login').set('X-Forwarded-For', '198.51.100.2').send(body),
      60,
    );

    const proxied = await start({ ...env, GATEHOUSE_TRUSTED_PROXIES: '127.0.0.1' });
    await request(proxied.url).post('/auth/login').set('X-Forwarded-For', '198.51.100.1').send(body).expect(401);
    await request(proxied.url).post('/auth/login').set('X-Forwarded-For', '198.51.100.2').send(body).expect(401);
    expectRateLimited(
      await request(proxied.url).post('/auth/login').set('X-Forwarded-For', '198.51.100.2').send(body),
      60,
    );
  });

  describeWithService('redis', 'with GATEHOUSE_REDIS_URL (L5)', () => {
    const prefix = `gatehouse-test:${process.pid}:${randomBytes(4).toString('hex')}`;
    after(async () => {
      const admin = new Redis(serviceUrl('redis'));
      const keys = await admin.keys(`${prefix}:*`);
      if (keys.length > 0) await admin.del(...keys);
      await admin.quit();
    });

    it('shares one budget between two servers, and keeps it across a restart', async () => {
      const env = {
        GATEHOUSE_REDIS_URL: serviceUrl('redis'),
        GATEHOUSE_REDIS_KEY_PREFIX: prefix,
        GATEHOUSE_RATE_LIMITS: 'login.ip=3/1m',
      };
      const a = await start(env);
      const b = await start(env);
      expect(a.stderr).to.match(/"event":"listening".*"rateLimits":"redis"/);
      await request(a.url).post('/auth/login').send(body).expect(401);
      await request(b.url).post('/auth/login').send(body).expect(401);
      await request(a.url).post('/auth/login').send(body).expect(401);
      expectRateLimited(await request(b.url).post('/auth/login').send(body), 60);
      expectRateLimited(await request(a.url).post('/auth/login').send(body), 60);

      expect(await a.stop('SIGTERM'), 'a clean shutdown, Redis connection included').to.equal(0);
      expect(await b.stop('SIGTERM')).to.equal(0);
      const restarted = await start(env);
      expectRateLimited(await request(restarted.url).post('/auth/login').send(body), 60);
    });
  });
});
