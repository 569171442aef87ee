import { expect } from 'chai';
import type { Response } from 'supertest';
import { crc32 } from 'node:zlib';
import { bearer, PREFIX, type TestApp } from '../support/test-app';

export const NOBODY = '00000000-0000-4000-8000-000000000000';
export const keys = (path = '') => `${PREFIX}/api-keys${path}`;
export const adminKeys = (userId: string, path = '') => `${PREFIX}/admin/users/${userId}/api-keys${path}`;

/** Gives `username` a role carrying `permissions` (created as needed), as an operator would. */
export async function grantPermissions(t: TestApp, username: string, role: string, permissions: string[]) {
  await t.accounts.access.createRole(role);
  for (const permission of permissions) {
    await t.accounts.access.createPermission(permission);
    await t.accounts.access.grantPermission(role, permission);
  }
  await t.accounts.access.grantRole(username, role);
}

/** Creates a key over HTTP with a fresh session (a login proves the password, so it is recent). */
export async function createKey(
  t: TestApp,
  token: string,
  body: object = { name: 'ci', scopes: ['posts.read'] },
): Promise<{ key: string; api_key: Record<string, unknown> }> {
  const response = await t.http.post(keys()).set(bearer(token)).send(body);
  expect(response.status, response.text).to.equal(201);
  return response.body as { key: string; api_key: Record<string, unknown> };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The checksum as docs/api-keys.md states it, computed here on its own (not with the code under test): CRC32 of
 * everything before the last six characters, written in base62 (0-9A-Za-z), most significant digit first, padded
 * with `0` to six.
 */
export function documentedChecksum(text: string): string {
  let value = crc32(text);
  let digits = '';
  while (value > 0) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits.padStart(6, '0');
}

/** What the design says a key of `prefix` looks like, its checksum included. */
export function expectKeyOfFormat(key: string, prefix = 'gatehouse'): void {
  expect(key).to.match(new RegExp(`^${prefix}_[0-9A-Za-z]{38}$`));
  expect(key).to.have.length(prefix.length + 1 + 38);
  expect(key.slice(-6)).to.equal(documentedChecksum(key.slice(0, -6)));
}

export function expectCode(response: Response, status: number, code: string): void {
  expect(response.status, `${response.status} ${response.text}`).to.equal(status);
  expect(response.body?.detail?.code, response.text).to.equal(code);
}
