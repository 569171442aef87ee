import { expect } from 'chai';
import { SealError, TokenSealer } from '../../src/services/token-sealer';

const KEY = 'sealer-test-secret-key-0123456789-abcdefghij';
const TOKEN = 'Zx3_kP9-qLm2Vb7nR4tY8wE1uI6oA5sD0fG2hJ4kL6c';
const MESSAGE = '6c1f7f0e-2a57-4d7e-9c55-0e4b3c2a1f00';

describe('TokenSealer (raw tokens at rest in the outbox)', () => {
  const sealer = new TokenSealer(KEY);

  it('opens what it sealed, and the sealed form shows nothing of the token', () => {
    const sealed = sealer.seal(TOKEN, MESSAGE);
    expect(sealed).to.match(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).to.not.contain(TOKEN);
    expect(sealed).to.not.contain(Buffer.from(TOKEN).toString('base64url').slice(0, 16));
    expect(sealer.open(sealed, MESSAGE)).to.equal(TOKEN);
    expect(sealer.seal(TOKEN, MESSAGE), 'a fresh IV each time').to.not.equal(sealed);
  });

  it('opens only inside its own message, under the same key, untampered', () => {
    const sealed = sealer.seal(TOKEN, MESSAGE);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] ^= 1;
    const flipped = `v1.${bytes.toString('base64url')}`;
    const refusals = [
      () => sealer.open(sealed, 'another-message'),
      () => new TokenSealer(`${KEY}-changed`).open(sealed, MESSAGE),
      () => sealer.open(flipped, MESSAGE),
      () => sealer.open(sealed.replace('v1.', 'v2.'), MESSAGE),
      () => sealer.open('v1.', MESSAGE),
      () => sealer.open(TOKEN, MESSAGE),
    ];
    for (const refusal of refusals) {
      expect(refusal).to.throw(SealError, /does not open/);
    }
  });

  it('takes its key from the secret key through HKDF: a Buffer and its UTF-8 string agree', () => {
    const sealed = sealer.seal(TOKEN, MESSAGE);
    expect(new TokenSealer(Buffer.from(KEY, 'utf8')).open(sealed, MESSAGE)).to.equal(TOKEN);
  });
});
