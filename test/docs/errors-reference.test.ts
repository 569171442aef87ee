import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ACCOUNT_ERROR_CODES, AccountError, AccountErrorCode } from '../../src/errors/account-error';
import { statusForAccountError } from '../../src/errors/status-table';
import { httpErrorForStatus } from '../../src/http/http-errors';
import { codesIn, readDoc, ROOT, tableUnder } from './markdown';

const PAGE = 'docs/reference/errors.md';

/** "400 / 409" gives [400, 409]. */
function statusesIn(cell: string): number[] {
  return [...cell.matchAll(/\b([1-5]\d\d)\b/g)].map((match) => Number(match[1]));
}

/** Every string literal of src/, to show that a documented code is one the code can produce. */
function sourceLiterals(): Set<string> {
  const literals = new Set<string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(full, 'utf8').matchAll(/'([a-z_]+)'/g)) literals.add(match[1]);
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  return literals;
}

/** The code of each HTTP status the renderer names generically, and back: `not_found` → 404. */
const STATUS_OF_GENERIC_CODE = new Map<string, number>();
for (let status = 400; status < 600; status++) {
  const { code } = httpErrorForStatus(status);
  if (!STATUS_OF_GENERIC_CODE.has(code) && !/^(client|server)_error$/.test(code))
    STATUS_OF_GENERIC_CODE.set(code, status);
}

describe('docs/reference/errors.md against the code', () => {
  const page = readDoc(PAGE);

  it('lists every account error code, and only those, with the status the code → status table gives', () => {
    const documented = new Map<string, number[]>();
    for (const [codeCell, , statusCell] of tableUnder(page, 'Account errors')) {
      for (const code of codesIn(codeCell)) documented.set(code, statusesIn(statusCell));
    }
    expect([...documented.keys()].sort()).to.deep.equal([...ACCOUNT_ERROR_CODES].sort());
    for (const code of ACCOUNT_ERROR_CODES) {
      const expected = [statusForAccountError(new AccountError(code as AccountErrorCode))];
      // A taken username is the one conflict: the same code, 409 instead of its status.
      if (code === 'invalid_username') {
        expected.push(statusForAccountError(new AccountError(code, 'Username already exists', { conflict: true })));
      }
      expect(documented.get(code), code).to.deep.equal(expected);
    }
  });

  it('lists HTTP error codes the code produces, each with the status it is answered with', () => {
    const literals = sourceLiterals();
    const rows = tableUnder(page, 'HTTP errors');
    expect(rows.length).to.be.greaterThan(5);
    for (const [codeCell, , statusCell] of rows) {
      const codes = codesIn(codeCell);
      const statuses = statusesIn(statusCell);
      expect(codes.length, codeCell).to.equal(statuses.length);
      codes.forEach((code, index) => {
        expect(literals.has(code), `${code} appears in src/`).to.equal(true);
        // A code named for its status (not_found, payload_too_large...) must be documented with that status.
        if (STATUS_OF_GENERIC_CODE.has(code)) expect(statuses[index], code).to.equal(STATUS_OF_GENERIC_CODE.get(code));
      });
    }
  });
});
