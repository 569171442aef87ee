import type { Server } from 'node:http';
import request from 'supertest';
import { accountApiDocument } from '../../src/app/account-api-document';
import type { JsonObject } from '../../src/openapi/schemas';
import { type Answer, ContractChecker } from './contract-check';
import { type GatehouseMount, gatehouseMounts, watchGatehouseMounts } from './contract-mounts';

/** An answer the document does not describe; the test that received it fails with this error. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** What the hook needs of supertest's `Test`. */
interface TestLike {
  app: Server | string;
  method: string;
  url: string;
  assert(resError: unknown, res: ResponseLike | undefined, fn?: (error: unknown, res: unknown) => void): void;
}
interface ResponseLike {
  /** The client request, whose `path` is what was sent (the URL class would resolve `/./` and `/../`). */
  req?: { path?: string };
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
  body?: unknown;
}

const checkers = new Map<string, ContractChecker>();
let plant: ((document: JsonObject) => void) | undefined;

/**
 * The contract hook (installed by test/setup.ts for every suite): every answer a test receives through supertest
 * from an in-process app is checked against the OpenAPI document of the Gatehouse mount it came from, built by
 * `accountApiDocument()` with the options that app serves (prefix, pages, the document itself, the user schema;
 * see contract-mounts.ts), which is what its `{prefix}/openapi.json` serves. An answer the document does not
 * describe fails the test with a `ContractViolation`, before the test's own expectations are read.
 *
 * Scope: paths under a prefix where the app mounted Gatehouse's documented controllers, pages or document. Every
 * other path is the host's (test controllers such as test/http/fixtures/posts-controller.ts) and is not checked.
 * Under the prefix, a path the document does not list must be its `NotFound` answer, and a method it does not list
 * its `MethodNotAllowed` (or `AllowedMethods` for OPTIONS) with `Allow` naming exactly the listed methods. Requests
 * to a URL (a server in another process, `npm start`) are outside the hook: that process runs the same code.
 *
 * It wraps supertest's `Test#assert`, which every request ends in (`await`, `.then`, `.end`, `.expect`), so
 * it needs nothing from the suites and covers any driver routing-controllers mounts on (Koa, Express).
 */
export function installContractHook(): void {
  watchGatehouseMounts();
  const Test = (request as unknown as { Test: { prototype: TestLike } }).Test;
  const assert = Test.prototype.assert;
  Test.prototype.assert = function (this: TestLike, resError, res, fn) {
    const violation = res ? contractViolation(this, res) : null;
    if (violation && fn) return fn.call(this, violation, res);
    return assert.call(this, resError, res, fn);
  };
}

/**
 * Runs `body` with the documents changed by `transform` (a test planting a mismatch, to prove the hook sees it).
 */
export async function withPlantedDocument<T>(transform: (document: JsonObject) => void, body: () => Promise<T>) {
  plant = transform;
  checkers.clear();
  try {
    return await body();
  } finally {
    plant = undefined;
    checkers.clear();
  }
}

function contractViolation(test: TestLike, res: ResponseLike): ContractViolation | null {
  if (typeof test.app === 'string' || typeof test.app?.listeners !== 'function') return null;
  const [handler] = test.app.listeners('request');
  if (!handler) return null;
  const answer: Answer = {
    method: test.method,
    path: (res.req?.path ?? new URL(test.url).pathname).split('?')[0],
    status: res.status,
    headers: res.headers,
    text: bodyText(res),
  };
  // The mount whose prefix is the longest one holding the path (a bare prefix holds every path).
  const mounts = gatehouseMounts(handler).sort((a, b) => b.prefix.length - a.prefix.length);
  for (const mount of mounts) {
    const checker = checkerFor(mount);
    if (!checker.covers(answer.path)) continue;
    const violation = checker.violation(answer);
    return violation ? new ContractViolation(`The answer is not the document's: ${violation}`) : null;
  }
  return null;
}

function checkerFor(mount: GatehouseMount): ContractChecker {
  const key = JSON.stringify(mount);
  let checker = checkers.get(key);
  if (!checker) {
    // As served: through JSON.
    const document = JSON.parse(JSON.stringify(accountApiDocument(mount))) as JsonObject;
    plant?.(document);
    checker = new ContractChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}

function bodyText(res: ResponseLike): string {
  if (typeof res.text === 'string') return res.text;
  return Buffer.isBuffer(res.body) ? res.body.toString('utf8') : '';
}
