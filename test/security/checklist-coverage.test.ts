import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The items of the project's security checklist (SECURITY-CHECKLIST.md, which lives outside this repository), one line
 * each. Every item needs a test in test/security whose title starts with `<ID>:`, or a line in the checklist map
 * (docs/security/checklist.md), starting `- <ID>`, that says why it does not apply.
 */
const CHECKLIST: Readonly<Record<string, string>> = {
  P1: 'length in code points after NFKC, 12 (configurable) to 128',
  P2: 'over-long input refused before hashing, fast',
  P3: 'no truncation',
  P4: 'no composition rules; spaces, emoji, any script',
  P5: 'NFKC alike on set, change, reset and login',
  P6: 'blocklist and context words on register, change and reset',
  P7: 'a change needs a valid session and the current password',
  P8: 'argon2id (m >= 19456, t >= 2, p = 1, 16-byte salt, PHC), rehash on login',
  T1: 'tokens are 32 bytes from a CSPRNG',
  T2: 'only a keyed hash is stored; no raw token in any table or log',
  T3: 'a token is bound to its purpose and user',
  T4: 'expiry checked on the server',
  T5: 'a new reset request supersedes older tokens; a password change ends them',
  T6: 'opening a link (GET) never consumes a token',
  T7: 'bearer tokens only in the Authorization header',
  S1: 'every login mints a new token',
  S2: 'logout is effective immediately',
  S3: "logout-all ends that user's sessions and nobody else's",
  S4: 'reset and change end sessions in the same transaction as the password update',
  S5: 'deletion ends sessions and tokens; a dead token is 401, never 500',
  S6: 'idle and absolute expiry; sliding renewal capped',
  S7: 'roles read from the store on each request; a role in a body is ignored',
  S8: 'token answers carry Cache-Control: no-store',
  R1: 'reset and resend answer identically for every kind of address; mail only for accounts',
  R2: 'links from the configured public URL; Host and X-Forwarded-Host ignored',
  R3: 'new password judged before the token is consumed; consume and update atomic',
  R4: 'a reset does not log in, ends sessions, and notifies without a secret',
  R5: 'a reset request changes nothing until used',
  E1: 'unknown user and wrong password answer alike; unverified shown only after the right password',
  E2: 'unknown users cost a dummy argon2 verification (timing)',
  E3: 'registering a taken email answers like success; the owner is told',
  E4: 'SMTP down changes no answer of reset or resend',
  L1: 'failed logins per account throttled with backoff; reset stays possible',
  L2: 'per-IP limits answer 429 with Retry-After; per-email mail limits are silent',
  L3: 'X-Forwarded-For trusted only from configured proxies',
  L4: 'every spelling of a path shares its bucket',
  L5: 'limits shared across instances and surviving a restart (Redis)',
  C6: 'bounded concurrent hashing: a queue, then 503 with Retry-After',
  I1: '16 KiB limit on the decoded body (413); application/json only (415)',
  I2: 'strict DTOs: wrong types are 400; fuzzing finds no 5xx',
  I3: 'emails: NFKC, one @, no CR/LF, commas, quotes or controls, 254 bytes, canonical uniqueness',
  I4: 'user values escaped in email HTML, never in mail headers',
  H1: 'every answer is JSON with nosniff, no-store and no-referrer',
  D1: 'unique canonical username and email in the database itself',
  D2: 'multi-step operations are single transactions',
  D3: 'logs carry security events and never a secret',
  D4: 'SQLite: WAL, synchronous=FULL, busy_timeout, foreign keys, immediate writes; survives kill -9',
  C1: 'concurrent registrations of one name or email: one row, no 5xx',
  C2: 'concurrent confirms of one token: exactly one success',
  C5: 'database restart: no crash, quick 503, recovery by itself',
};

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SUITE = path.join(ROOT, 'test', 'security');

function sourcesOf(folder: string): { file: string; text: string }[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return entry.name.endsWith('.ts') ? [{ file: path.relative(ROOT, full), text: readFileSync(full, 'utf8') }] : [];
  });
}

/** The IDs that start a test title (`it('T7: ...'`), by file. */
function testedIds(): Map<string, Set<string>> {
  const byFile = new Map<string, Set<string>>();
  for (const { file, text } of sourcesOf(SUITE)) {
    const ids = [...text.matchAll(/\bit\(\s*['"`]([A-Z]\d+):/g)].map((match) => match[1]);
    byFile.set(file, new Set(ids));
  }
  return byFile;
}

const CHECKLIST_MAP = 'docs/security/checklist.md';

/** The checklist map: which file proves each item, and why an item does not apply. */
function checklistMap(): string {
  return readFileSync(path.join(ROOT, CHECKLIST_MAP), 'utf8');
}

describe('Security checklist: coverage', () => {
  const ids = Object.keys(CHECKLIST);
  const section = checklistMap();
  const byFile = testedIds();
  const tested = new Set([...byFile.values()].flatMap((set) => [...set]));
  /** `- D4 (PostgreSQL): reason` lines: items that do not apply, with the reason. */
  const exempt = new Set([...section.matchAll(/^- ([A-Z]\d+)\b[^:\n]*: \S.*$/gm)].map((match) => match[1]));

  it('the checklist map has a table of items and files', () => {
    expect(
      section.split('\n').filter((line) => /^\| [A-Z]\d+/.test(line)),
      CHECKLIST_MAP,
    ).to.not.deep.equal([]);
  });

  it('every checklist item has a test titled "<ID>: ..." in test/security, or a reason in the checklist map why it does not apply', () => {
    expect(ids.filter((id) => !tested.has(id) && !exempt.has(id))).to.deep.equal([]);
  });

  it('every ID used in a title or the checklist map is an item of the checklist', () => {
    const known = new Set(ids);
    expect([...tested, ...exempt].filter((id) => !known.has(id))).to.deep.equal([]);
  });

  it('the checklist map names, for every item, the file whose tests prove it', () => {
    const mapped = new Set<string>();
    for (const row of section.split('\n').filter((line) => line.startsWith('|'))) {
      const file = /`(test\/security\/[\w./-]+\.ts)`/.exec(row)?.[1];
      const rowIds = [...row.matchAll(/\b([A-Z]\d+)\b/g)].map((match) => match[1]).filter((id) => id in CHECKLIST);
      if (!file || rowIds.length === 0) continue;
      for (const id of rowIds) {
        expect(byFile.get(file)?.has(id), `${id} has a test in ${file}`).to.equal(true);
        mapped.add(id);
      }
    }
    expect(ids.filter((id) => !mapped.has(id) && !exempt.has(id))).to.deep.equal([]);
  });

  it('nothing in test/security is skipped or exclusive', () => {
    for (const { file, text } of sourcesOf(SUITE)) {
      expect(text.match(/\b(?:it|describe)\.(?:skip|only)\(|\bx(?:it|describe)\(/g), file).to.equal(null);
    }
  });
});
