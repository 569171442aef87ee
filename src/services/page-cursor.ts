import { timingSafeEqual } from 'node:crypto';
import { AccountError } from '../errors/account-error';
import type { TokenHasher } from './token-hasher';

/**
 * The opaque cursor of a keyset page: the sort key (an instant and an id) of the last row shown, and a MAC of it
 * (the keyed hash of `TokenHasher`, under the secret key) that also covers the list it came from and that list's
 * filters. Opaque so clients pass it back as it is; authenticated, so that only a cursor this service handed out for
 * this very list and these filters is accepted: a truncated, made-up or shifted one, or one of another list or other
 * filters, is a clear 400 `invalid_cursor` rather than a query on a position nobody was shown.
 */
export interface CursorKey {
  at: Date;
  id: string;
}

/** What a cursor is bound to: the list's name and its filters, canonical (same filters, same text). */
export interface CursorScope {
  list: 'users' | 'audit' | 'organizations';
  filters: Record<string, string | number | boolean | readonly string[] | undefined>;
}

const ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;
/** The longest cursor made: a 64-character id and its instant in base64url (108), a dot, the MAC (43). */
const MAX_CURSOR_LENGTH = 160;
const CURSOR_PATTERN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

export class PageCursors {
  constructor(private readonly tokens: TokenHasher) {}

  encode(scope: CursorScope, key: CursorKey): string {
    const position = Buffer.from(`${key.at.getTime()}.${key.id}`, 'utf8').toString('base64url');
    return `${position}.${this.mac(scope, position)}`;
  }

  decode(scope: CursorScope, cursor: string): CursorKey {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
    const parts = CURSOR_PATTERN.exec(cursor);
    if (!parts) throw invalidCursor();
    const [, position, mac] = parts;
    // Compared in constant time: how much of a guessed MAC was right must not show in the answer's timing.
    const expected = Buffer.from(this.mac(scope, position), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
    const text = Buffer.from(position, 'base64url').toString('utf8');
    const dot = text.indexOf('.');
    const ms = Number(text.slice(0, dot));
    const id = text.slice(dot + 1);
    if (dot < 1 || !Number.isSafeInteger(ms) || ms < 0 || !ID_PATTERN.test(id)) throw invalidCursor();
    return { at: new Date(ms), id };
  }

  private mac(scope: CursorScope, position: string): string {
    return this.tokens.hash(`page-cursor\n${scope.list}\n${canonical(scope.filters)}\n${position}`);
  }
}

/** The filters as one text: keys sorted, absent ones left out, instants as milliseconds, lists sorted. */
function canonical(filters: CursorScope['filters']): string {
  const entries = Object.keys(filters)
    .sort()
    .filter((name) => filters[name] !== undefined)
    .map((name) => {
      const value = filters[name];
      return [name, Array.isArray(value) ? [...(value as readonly string[])].sort() : value];
    });
  return JSON.stringify(entries);
}

function invalidCursor(): AccountError {
  return new AccountError('invalid_cursor', 'The cursor is not one this list returned');
}
