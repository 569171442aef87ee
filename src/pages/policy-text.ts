import type { PasswordPolicyOptions } from '../services/account-options';

/**
 * The password policy in words, from the options the core enforces (services/password-policy.ts), so the hint
 * cannot promise a rule the server does not apply.
 */
export function passwordHint(policy: PasswordPolicyOptions): string {
  const refused = ['passwords containing your username or the first part of your email address'];
  if (policy.useBlocklist) refused.unshift('common passwords');
  return (
    `Use ${policy.minLength} to ${policy.maxLength} characters. A few unrelated words make a good one; spaces, ` +
    `accents and emoji are welcome, and no digits or symbols are required. Refused: ${refused.join(' and ')}.`
  );
}

const UNITS: [ms: number, one: string, many: string][] = [
  [24 * 60 * 60_000, 'a day', 'days'],
  [60 * 60_000, 'an hour', 'hours'],
  [60_000, 'a minute', 'minutes'],
];

/** A token lifetime as people say it: "a day", "an hour", "30 minutes", "90 seconds". */
export function durationText(ms: number): string {
  for (const [unit, one, many] of UNITS) {
    if (ms % unit === 0) return ms === unit ? one : `${ms / unit} ${many}`;
  }
  return `${Math.round(ms / 1000)} seconds`;
}
