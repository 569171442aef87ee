import { expect } from 'chai';
import type { Response } from 'supertest';

/** Asserts an error answer of the spec's shape: the status and `{"detail": {"detail", "code"}}` with this code. */
export function expectCode(response: Response, status: number, code: string): void {
  expect(response.status, `${response.status} ${response.text}`).to.equal(status);
  expect(response.body?.detail?.code, response.text).to.equal(code);
}
