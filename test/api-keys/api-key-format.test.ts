import { expect } from 'chai';
import { crc32 } from 'node:zlib';
import {
  API_KEY_BODY_LENGTH,
  apiKeyChecksum,
  BASE62,
  checkedApiKeyPrefix,
  hasValidChecksum,
  isApiKeyShaped,
  isWellFormedApiKey,
  lastFourOf,
  mintApiKey,
} from '../../src/services/api-keys/api-key-format';

/** The checksum as a scanner would compute it from the docs, written apart from the code under test. */
function documentedChecksum(text: string): string {
  let value = BigInt(crc32(text));
  let digits = '';
  while (value > 0n) {
    digits = BASE62[Number(value % 62n)] + digits;
    value /= 62n;
  }
  return digits.padStart(6, '0');
}

describe('API key format', () => {
  it('mints {prefix}_{32 base62}{6 base62 CRC32 of all before}', () => {
    const key = mintApiKey('acme_live');
    expect(key).to.match(/^acme_live_[0-9A-Za-z]{38}$/);
    expect(key.length).to.equal('acme_live_'.length + API_KEY_BODY_LENGTH);
    expect(key.slice(-6)).to.equal(documentedChecksum(key.slice(0, -6)));
    expect(isWellFormedApiKey(key, 'acme_live')).to.equal(true);
  });

  it('pads a small checksum with leading zeros', () => {
    // Find a text whose CRC32 needs fewer than six digits, so the padding rule is exercised, not assumed.
    let index = 0;
    while (crc32(`p_${index}`) >= 62 ** 5) index++;
    const text = `p_${index}`;
    expect(apiKeyChecksum(text)).to.have.length(6);
    expect(apiKeyChecksum(text)[0]).to.equal('0');
    expect(apiKeyChecksum(text)).to.equal(documentedChecksum(text));
  });

  it('draws the random part from the given source, without bias towards early characters', () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 2000; index++) {
      for (const character of mintApiKey('abc').slice(4, 36)) counts.set(character, (counts.get(character) ?? 0) + 1);
    }
    expect(counts.size).to.equal(62);
    const expected = (2000 * 32) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).to.be.below(0.2);
    // Bytes 248..255 are rejected: a source giving only those and then zeros yields only '0's.
    let calls = 0;
    const skewed = (size: number) => Buffer.alloc(size, calls++ === 0 ? 250 : 0);
    expect(mintApiKey('abc', skewed).slice(4, 36)).to.equal('0'.repeat(32));
  });

  it('tells a key from a session token by its shape, and refuses any changed character by its checksum', () => {
    const key = mintApiKey('gatehouse');
    expect(isApiKeyShaped(key, 'gatehouse')).to.equal(true);
    expect(isApiKeyShaped(key, 'other')).to.equal(false);
    expect(isApiKeyShaped('a'.repeat(43), 'gatehouse')).to.equal(false);
    expect(isApiKeyShaped(`${key}x`, 'gatehouse')).to.equal(false);
    expect(isApiKeyShaped(key.replace(/.$/, '-'), 'gatehouse')).to.equal(false);
    for (let position = 'gatehouse_'.length; position < key.length; position++) {
      const replacement = key[position] === 'A' ? 'B' : 'A';
      const flipped = key.slice(0, position) + replacement + key.slice(position + 1);
      expect(isApiKeyShaped(flipped, 'gatehouse'), `position ${position}`).to.equal(true);
      expect(hasValidChecksum(flipped), `position ${position}`).to.equal(false);
      expect(isWellFormedApiKey(flipped, 'gatehouse')).to.equal(false);
    }
    expect(lastFourOf(key)).to.equal(key.slice(-4));
  });

  it('accepts prefixes of 3 to 24 of a-z, 0-9 and _ only', () => {
    for (const good of ['abc', 'acme_live', 'a'.repeat(24), 'x_1']) expect(checkedApiKeyPrefix(good)).to.equal(good);
    for (const bad of ['ab', 'a'.repeat(25), 'Acme', 'acme-live', 'acme live', '', 7, undefined]) {
      expect(() => checkedApiKeyPrefix(bad), String(bad)).to.throw(/apiKeyPrefix must be 3 to 24/);
    }
  });
});
