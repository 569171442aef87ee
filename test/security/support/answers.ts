import { expect } from 'chai';
import type { Response } from 'supertest';

/** Asserts an account error answer: the status and `{"detail": {"detail", "code"}}`. */
export function expectError(response: Response, status: number, code: string): void {
  expect(response.status, `${response.status} ${response.text}`).to.equal(status);
  expect(response.body?.detail?.code, response.text).to.equal(code);
}

/** Headers that differ between any two answers whatever they say. */
const PER_ANSWER_HEADERS = new Set(['date', 'x-request-id']);

/** What a client can compare of an answer: status, every header but date and request id, and the exact body bytes. */
export function observable(response: Response): { status: number; headers: Record<string, unknown>; body: string } {
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => !PER_ANSWER_HEADERS.has(name)),
  );
  return { status: response.status, headers, body: response.text };
}
