import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const DEFERRED = join(__dirname, '../../src/server/deferred-modules.js');

// In a fresh process: the test runner has long loaded class-validator, and with it libphonenumber-js.
const PROBE = `
  require(process.argv[1]);
  const loaded = () => Object.keys(require.cache).filter((file) => file.includes('/libphonenumber-js/')).length;
  const classValidator = require('class-validator');
  const atStart = loaded();
  const answers = [
    classValidator.isPhoneNumber('+14155552671'),
    classValidator.isPhoneNumber('not a number'),
    classValidator.isPhoneNumber('06 12 34 56 78', 'FR'),
  ];
  process.stdout.write(JSON.stringify({ atStart, afterUse: loaded(), answers }));
`;

describe("the standalone server defers modules it never calls (libphonenumber-js, class-validator's)", () => {
  it('leaves it unloaded when class-validator loads, and loads it whole at the first use, answering as before', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', PROBE, DEFERRED], { encoding: 'utf8' })) as {
      atStart: number;
      afterUse: number;
      answers: boolean[];
    };
    // The stand-in alone, under the real module's file name.
    expect(out.atStart).to.equal(1);
    expect(out.afterUse).to.be.greaterThan(10);
    expect(out.answers).to.deep.equal([true, false, true]);
  });
});
