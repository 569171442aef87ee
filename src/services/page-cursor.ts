import { AccountError } from '../errors/account-error';

/**
 * The opaque cursor of a keyset page: the sort key (an instant and an id) of the last row shown. Opaque so clients
 * pass it back as it is; decoded strictly, so a forged one is a clear 400 rather than a query on garbage.
 */
export interface CursorKey {
  at: Date;
  id: string;
}

const ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;
const MAX_CURSOR_LENGTH = 128;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(`${key.at.getTime()}.${key.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): CursorKey {
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalidCursor();
  }
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const ms = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(ms) || ms < 0 || !ID_PATTERN.test(id)) throw invalidCursor();
  return { at: new Date(ms), id };
}

function invalidCursor(): AccountError {
  return new AccountError('invalid_cursor', 'The cursor is not one this list returned');
}
