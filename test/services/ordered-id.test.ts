import { expect } from 'chai';
import { orderedId } from '../../src/services/ordered-id';

describe('orderedId', () => {
  it('makes version 7 UUIDs that sort in the order they were made, within one millisecond too', () => {
    const ids = Array.from({ length: 5000 }, () => orderedId(1_700_000_000_000));
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(orderedId(1_700_000_000_000) > ids[ids.length - 1]).to.equal(true);
  });
});
