import { createHmac } from 'node:crypto';

// An RFC 6238 implementation of the tests' own (HMAC-SHA1, 6 digits, 30-second steps), written from the RFC and not
// from the library the server uses: codes the tests compute this way check the server against the standard.

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index === -1) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The 6-digit code of `secret` (base32) for the 30-second step of `at`, shifted by `stepOffset` steps. */
export function totpCode(secret: string, at: Date, stepOffset = 0): string {
  const counter = Math.floor(at.getTime() / 1000 / 30) + stepOffset;
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', base32Decode(secret)).update(message).digest();
  const offset = digest[digest.length - 1] & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

/** The secret of an `otpauth://` URI. */
export function secretOf(uri: string): string {
  return new URL(uri).searchParams.get('secret')!;
}
