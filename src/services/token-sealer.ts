import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// HKDF separates this key from every other use of the secret key (token HMACs, limiter keys): a leak of one derived
// key says nothing about the others or the secret itself.
const OUTBOX_SEALING: SealingPurpose = { salt: 'gatehouse.outbox', info: 'token-sealing v1' };

/** What a sealing key is for: each purpose gets its own key from the secret key. */
export interface SealingPurpose {
  salt: string;
  info: string;
}

/**
 * Encrypts the raw token of a link message for the time it waits in the outbox: AES-256-GCM under a key derived with
 * HKDF-SHA256 from the secret key, with the message id as associated data, so a sealed token only opens inside its
 * own message (copying it into another row fails authentication). The row keeps it until the message is sent or
 * given up, then erases it.
 *
 * Why seal rather than mint the token at delivery: a token minted by the worker would be a new token on every
 * attempt, and a duplicate send (a worker that died after SMTP accepted) would supersede the first link, so the mail
 * the user opens first could carry a dead link. Sealing keeps one token per message, stored hashed in `tokens` in
 * the same transaction as before; retries and duplicates carry the same working link.
 *
 * @example
 * const sealer = new TokenSealer(secretKey);
 * const sealed = sealer.seal(token, messageId); // 'v1.<base64url>'
 * sealer.open(sealed, messageId) === token;
 */
export class TokenSealer {
  private readonly key: Buffer;

  /** `purpose` separates keys: the outbox's by default; the second factor's secrets have their own. */
  constructor(secretKey: string | Buffer, purpose: SealingPurpose = OUTBOX_SEALING) {
    const secret = Buffer.isBuffer(secretKey) ? secretKey : Buffer.from(secretKey, 'utf8');
    const salt = Buffer.from(purpose.salt, 'utf8');
    this.key = Buffer.from(hkdfSync('sha256', secret, salt, Buffer.from(purpose.info, 'utf8'), 32));
  }

  seal(token: string, messageId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(messageId, 'utf8'));
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The token, or throws `SealError` when the value is not a sealed token of this message under this key (the secret
   * key changed, the value was tampered with or moved to another row). The error says nothing about the value.
   */
  open(sealed: string, messageId: string): string {
    const [version, data, extra] = sealed.split('.');
    if (version !== VERSION || data === undefined || extra !== undefined) throw new SealError();
    const bytes = Buffer.from(data, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES + 1) throw new SealError();
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(messageId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SealError();
    }
  }
}

/** A sealed value that does not open: wrong key, wrong row (associated data), or not a sealed value at all. */
export class SealError extends Error {
  override name = 'SealError';
  readonly code = 'ESEAL';

  constructor() {
    super('Gatehouse: a sealed value does not open (was the secret key changed?)');
  }
}
