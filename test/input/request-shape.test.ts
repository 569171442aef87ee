import { expect } from 'chai';
import type { Response, Test } from 'supertest';
import { MAX_JSON_DEPTH } from '../../src/http/json-body';
import { expectCode } from './expect-answer';
import { buildTestApp, DRIVERS, PASSWORD, PREFIX, TestApp } from '../support/test-app';

/** Sends the text as it is, with a JSON content type. */
function sendJson(request: Test, text: string): Promise<Response> {
  request.set('Content-Type', 'application/json');
  request.write(text);
  return request.then((response) => response);
}

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/**
 * Requests whose shape, not their values, once got a 5xx; both were found by the fuzz suite (test/fuzz). Media
 * types, sizes, encodings and charsets are pinned in test/http/errors.test.ts and test/security (I1, I2).
 */
for (const driver of DRIVERS)
  describe(`Input rules: the shape of a request (${driver})`, () => {
    let t: TestApp;
    beforeEach(() => {
      t = buildTestApp({ driver });
    });

    it('refuses a __proto__ key as what it is (400 bad_request), not as malformed JSON, and pollutes nothing', async () => {
      await t.createUser('alice');
      const body = `{"username":"alice","password":${JSON.stringify(PASSWORD)},"__proto__":{"admin":true}}`;
      const response = await sendJson(t.http.post(`${PREFIX}/login`), body);
      expectCode(response, 400, 'bad_request');
      expect(response.body.detail.detail).to.equal('Request body must not contain a "__proto__" key');
      expect(({} as Record<string, unknown>).admin).to.equal(undefined);
    });

    it(`parses JSON nested ${MAX_JSON_DEPTH} levels deep; deeper is 400 bad_request, never a stack overflow (500)`, async () => {
      // The body object is level 1: a field holding 63 nested arrays is exactly at the limit, and reaches validation.
      const login = (text: string) => sendJson(t.http.post(`${PREFIX}/login`), text);
      expectCode(
        await login(`{"username":${nestedArrays(MAX_JSON_DEPTH - 1)},"password":"x"}`),
        400,
        'validation_error',
      );
      const over = await login(`{"username":${nestedArrays(MAX_JSON_DEPTH)},"password":"x"}`);
      expectCode(over, 400, 'bad_request');
      expect(over.body.detail.detail).to.include(String(MAX_JSON_DEPTH));

      // 5,000 levels fit in 16 KiB; class-transformer used to overflow the stack on them, even in an unknown field.
      for (const text of [
        `{"username":${nestedArrays(5000)},"password":"x"}`,
        `{"ignored":${'{"a":'.repeat(2500)}1${'}'.repeat(2500)},"username":"alice","password":"${PASSWORD}"}`,
        nestedArrays(8000),
      ]) {
        expect(Buffer.byteLength(text)).to.be.below(16 * 1024);
        expectCode(await login(text), 400, 'bad_request');
      }
      expect(t.logger.errors()).to.deep.equal([]);
      expect(t.calls.size, 'the core was not reached').to.equal(0);
    });

    it('a null in a field the document types (optional or not) is 400 validation_error, never read as left out', async () => {
      for (const body of [
        { challenge_token: 'x', code: null },
        { challenge_token: 'x', recovery_code: null },
        { challenge_token: null, code: '123456' },
      ]) {
        const response = await t.http.post(`${PREFIX}/login/second-factor`).send(body);
        expectCode(response, 400, 'validation_error');
      }
      expectCode(await t.http.post(`${PREFIX}/login`).send({ username: null, password: 'x' }), 400, 'validation_error');
      expect(t.calls.size, 'the core was not reached').to.equal(0);
    });

    it('a method the router does not know is 405 with Allow on a route and 404 elsewhere, never 501', async () => {
      const propfind = await t.http.propfind(`${PREFIX}/login`);
      expectCode(propfind, 405, 'method_not_allowed');
      expect(propfind.headers.allow).to.equal('POST');
      const search = await t.http.search(`${PREFIX}/me`);
      expectCode(search, 405, 'method_not_allowed');
      expect(search.headers.allow).to.equal('HEAD, GET');
      expectCode(await t.http.propfind(`${PREFIX}/`), 404, 'not_found');
      expectCode(await t.http.mkcol(`${PREFIX}/nothing-here`), 404, 'not_found');
    });
  });
