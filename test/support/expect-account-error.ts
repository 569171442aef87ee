import { expect } from 'chai';
import { AccountError, AccountErrorCode } from '../../src/errors/account-error';

/** Awaits the promise and asserts it rejected with an AccountError of this code; returns the error. */
export async function expectAccountError(promise: Promise<unknown>, code: AccountErrorCode): Promise<AccountError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AccountError);
    expect((error as AccountError).code).to.equal(code);
    return error as AccountError;
  }
  throw new Error(`expected an AccountError ${code}, but the call succeeded`);
}
