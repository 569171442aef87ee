import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describeUserAgent, sessionAnswer } from '../../src/http/session-answer';

const ROOT = resolve(__dirname, '../../..');

describe('HTTP: the session answer', () => {
  it('gatehouse and gatehouse/express do not load bowser; the first description of a user agent does', () => {
    const script = `
      require(process.argv[1]);
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('/node_modules/bowser/'));
      const before = loaded();
      require(process.argv[2]).describeUserAgent('curl/8.5.0');
      process.stdout.write(JSON.stringify([before, loaded()]));`;
    // The compiled module by its file: the package exports only its entries.
    const module = join(ROOT, 'build/src/http/session-answer.js');
    for (const entry of ['gatehouse', 'gatehouse/express']) {
      const output = execFileSync(process.execPath, ['-e', script, entry, module], { cwd: ROOT, encoding: 'utf8' });
      expect(JSON.parse(output), entry).to.deep.equal([false, true]);
    }
  });

  it('reads browser, OS and device; a bot, an unreadable or no agent is undescribed', () => {
    const edge =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 ' +
      'Safari/537.36 Edg/131.0.0.0';
    expect(describeUserAgent(edge)).to.deep.equal({
      browser: { name: 'Microsoft Edge', version: '131.0.0.0' },
      os: { name: 'Windows', version: 'NT 10.0' },
      device: 'desktop',
    });
    const ipad = 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
    expect(describeUserAgent(ipad).device).to.equal('tablet');
    expect(
      describeUserAgent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)').device,
    ).to.equal(null);
    const nothing = { browser: null, os: null, device: null };
    expect(describeUserAgent(null)).to.deep.equal(nothing);
    expect(describeUserAgent('')).to.deep.equal(nothing);
    expect(describeUserAgent('\u0000\u0001 ??? <script>')).to.deep.include({ os: null, device: null });
  });

  it('describes a repeated agent once, shares the description frozen, and keeps a bounded number', () => {
    const agent = (n: number) => `Mozilla/5.0 (X11; Linux x86_64; rv:${n}.0) Gecko/20100101 Firefox/${n}.0`;
    const first = describeUserAgent(agent(1));
    expect(describeUserAgent(agent(1))).to.equal(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.browser)).to.equal(true);
    expect(() => ((first.browser as { name: string }).name = 'changed')).to.throw(TypeError);
    // 300 more agents than the 256 kept: the first has been let go, and is read again, equal but new.
    for (let n = 2; n <= 301; n++) describeUserAgent(agent(n));
    const again = describeUserAgent(agent(1));
    expect(again).to.not.equal(first);
    expect(again).to.deep.equal(first);
    expect(again.browser).to.deep.equal({ name: 'Firefox', version: '1.0' });
  });

  it('answers snake_case with ISO instants, the agent as stored', () => {
    const at = new Date('2026-11-25T06:00:00.000Z');
    const answer = sessionAnswer({
      id: 'a1b2',
      current: true,
      createdAt: at,
      lastUsedAt: at,
      expiresAt: new Date(at.getTime() + 1000),
      authenticatedAt: at,
      ip: null,
      userAgent: 'curl/8.5.0',
    });
    expect(answer).to.deep.equal({
      id: 'a1b2',
      current: true,
      created_at: '2026-11-25T06:00:00.000Z',
      last_used_at: '2026-11-25T06:00:00.000Z',
      expires_at: '2026-11-25T06:00:01.000Z',
      ip_address: null,
      user_agent: 'curl/8.5.0',
      browser: null,
      os: null,
      device: null,
    });
  });
});
