import { TOTP_PERIOD_SECONDS } from '../../src/services/second-factor/totp';
import type { Load, SequenceContext } from './measure';
import { type EnrolledAccount, stepAt } from './second-factor-accounts';

/** An account taken for one sign-in, with the time step whose code it will answer. */
interface Taken {
  account: EnrolledAccount;
  step: number;
}

/**
 * Sign-ins of accounts with the authenticator app on, each a whole one: `POST /login` with the password (a full
 * argon2id check, answered with a challenge), then `POST /login/second-factor` with the challenge and the app's code.
 * The server takes a time step once per account, and no step older than one it took, so the accounts are used in
 * turn, each with the code of the current step or, once that is spent, of the next (the drift window the server
 * allows): at most twice in the first step and once in each step after. `poolSize` says how many that needs.
 */
export class SecondFactorSignIns {
  /** Sign-ins sent while no account had a step left: the pool was too small, and each is refused (an error). */
  exhausted = 0;
  private next = 0;

  constructor(private readonly accounts: EnrolledAccount[]) {}

  load(origin: string, password: string, connections: number): Load {
    return {
      url: origin,
      connections,
      expect: [200],
      sequence: [
        {
          path: '/auth/login',
          method: 'POST',
          body: (context: SequenceContext) => {
            const taken = this.take();
            context.taken = taken;
            return { username: taken.account.username, password };
          },
          onAnswer: (status: number, body: string, context: SequenceContext) => {
            if (status === 200) context.challenge = (JSON.parse(body) as { challenge_token?: string }).challenge_token;
          },
        },
        {
          path: '/auth/login/second-factor',
          method: 'POST',
          body: (context: SequenceContext) => {
            const { account, step } = context.taken as Taken;
            if (typeof context.challenge !== 'string') return null;
            const code = account.app.generate({ timestamp: step * TOTP_PERIOD_SECONDS * 1000 });
            return { challenge_token: context.challenge, code };
          },
        },
      ],
    };
  }

  /** The next account that still has a step to use, that step reserved for it. */
  private take(): Taken {
    const now = stepAt(Date.now());
    for (let tried = 0; tried < this.accounts.length; tried++) {
      const account = this.accounts[this.next++ % this.accounts.length];
      const step = Math.max(account.lastStep + 1, now);
      if (step <= now + 1) {
        account.lastStep = step;
        return { account, step };
      }
    }
    // A spent step: the server refuses it, and the run counts the answer as an error.
    this.exhausted += 1;
    const account = this.accounts[this.next++ % this.accounts.length];
    return { account, step: account.lastStep };
  }
}

/**
 * Accounts enough for sign-ins at up to `rate` a second over `runs` runs (the warm-up counted as one) lasting
 * `seconds` in all: each account gives two in its first step and one in each step after, and the load lasts at least
 * `seconds`, so at least 2 + ⌊seconds / 30⌋ each. A quarter more for the VM's drift, and, as each run ends with a
 * sign-in under way on every connection, a step lost per connection and run.
 */
export function poolSize(rate: number, seconds: number, runs: number, connections: number): number {
  const uses = 2 + Math.floor(seconds / TOTP_PERIOD_SECONDS);
  return Math.ceil((1.25 * rate * seconds) / uses) + connections * runs;
}
