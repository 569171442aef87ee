import { expect } from 'chai';
import { describeDeliveryFailure } from '../../src/outbox/delivery-failure';
import { DEFAULT_OUTBOX_OPTIONS, resolveOutboxOptions } from '../../src/services/outbox-options';
import { RetrySchedule } from '../../src/outbox/retry-schedule';
import { EmailDeliveryError } from '../../src/email';

describe('outbox retry schedule and failure codes', () => {
  it('doubles from the base, capped, with the jitter within ±20%', () => {
    const middle = new RetrySchedule(5_000, 1_800_000, () => 0.5);
    expect([1, 2, 3, 4, 5, 9, 10, 11, 50].map((n) => middle.delayAfter(n))).to.deep.equal([
      5_000, 10_000, 20_000, 40_000, 80_000, 1_280_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
    expect(new RetrySchedule(5_000, 1_800_000, () => 0).delayAfter(2)).to.equal(8_000);
    expect(new RetrySchedule(5_000, 1_800_000, () => 0.999999).delayAfter(2)).to.equal(12_000);
    expect(new RetrySchedule(5_000, 1_800_000, () => 0.999999).delayAfter(20), 'never past the cap').to.equal(
      1_800_000,
    );
  });

  it('with the defaults, keeps trying for the whole day: some 50 attempts, none further apart than 30 min', () => {
    const schedule = new RetrySchedule(
      DEFAULT_OUTBOX_OPTIONS.retryBaseMs,
      DEFAULT_OUTBOX_OPTIONS.retryMaxMs,
      () => 0.5,
    );
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + schedule.delayAfter(attempts) < DEFAULT_OUTBOX_OPTIONS.giveUpAfterMs)
      elapsed += schedule.delayAfter(attempts++);
    expect(attempts).to.be.within(45, 60);
  });

  it('refuses unusable options, naming them', () => {
    expect(() => resolveOutboxOptions({ retryBaseMs: 0 })).to.throw(/outbox\.retryBaseMs must be a positive/);
    expect(() => resolveOutboxOptions({ retryBaseMs: 10_000, retryMaxMs: 5_000 })).to.throw(
      /retryMaxMs must be at least/,
    );
    expect(() => resolveOutboxOptions({ batchSize: 0 })).to.throw(/batchSize/);
    expect(() => resolveOutboxOptions({ nudgeDelayMs: -1 })).to.throw(/nudgeDelayMs must be a number/);
    expect(() => resolveOutboxOptions({ nudgeDelayMs: 60_000 })).to.throw(/nudgeDelayMs .* from 0 to 10000/);
    expect(resolveOutboxOptions({ nudgeDelayMs: 0 }).nudgeDelayMs).to.equal(0);
    expect(resolveOutboxOptions().nudgeDelayMs).to.equal(50);
    expect(() => resolveOutboxOptions({ worker: 'yes' as never })).to.throw(/worker must be true or false/);
    expect(() => resolveOutboxOptions({ locale: 'fr' as never })).to.throw(/locale must be a function/);
    expect(resolveOutboxOptions({ leaseMs: undefined }).leaseMs).to.equal(60_000);
  });

  it('records class and code only; permanent only for a refused recipient or message', () => {
    const smtp = (code: string, command?: string, responseCode?: number) =>
      new EmailDeliveryError('verification', { code, command, responseCode }, 'SMTP failure');
    const cases: [unknown, string, boolean][] = [
      [smtp('ESOCKET', 'CONN'), 'EmailDeliveryError:ESOCKET', false],
      [smtp('ETIMEDOUT', 'CONN'), 'EmailDeliveryError:ETIMEDOUT', false],
      [smtp('EENVELOPE', 'RCPT TO', 450), 'EmailDeliveryError:EENVELOPE:450', false],
      [smtp('EENVELOPE', 'RCPT TO', 550), 'EmailDeliveryError:EENVELOPE:550', true],
      [smtp('EMESSAGE', 'DATA', 554), 'EmailDeliveryError:EMESSAGE:554', true],
      [smtp('EMESSAGE', 'DATA', 451), 'EmailDeliveryError:EMESSAGE:451', false],
      [smtp('EAUTH', 'AUTH PLAIN', 535), 'EmailDeliveryError:EAUTH:535', false],
      [smtp('EINVALIDRECIPIENT'), 'EmailDeliveryError:EINVALIDRECIPIENT', true],
      [new Error('550 <alice@example.com> unknown; token=abc'), 'Error', false],
      [Object.assign(new TypeError('x'), { code: 'no spaces allowed here' }), 'TypeError', false],
      ['a string', 'string', false],
    ];
    for (const [error, code, permanent] of cases) {
      const failure = describeDeliveryFailure(error);
      expect([failure.code, failure.permanent], code).to.deep.equal([code, permanent]);
      expect(JSON.stringify(failure)).to.not.match(/alice|token=|spaces/);
    }
  });
});
