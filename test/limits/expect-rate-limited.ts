import { expect } from 'chai';
import type { Response } from 'supertest';

/** A 429 as every client must see it: JSON, the code, a usable Retry-After, and the security headers (H1). */
export function expectRateLimited(response: Response, maxRetryAfter: number): void {
  expect(response.status, response.text).to.equal(429);
  expect(response.headers['content-type']).to.match(/^application\/json/);
  expect(response.body.detail.code).to.equal('rate_limited');
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter, `Retry-After ${response.headers['retry-after']}`).to.be.within(1, maxRetryAfter);
  expect(String(retryAfter)).to.equal(response.headers['retry-after']);
  expect(response.headers['x-content-type-options']).to.equal('nosniff');
  expect(response.headers['cache-control']).to.equal('no-store');
  expect(response.headers['referrer-policy']).to.equal('no-referrer');
}
