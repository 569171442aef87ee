import { renderMessage } from './render';
import { englishOidcTemplates } from '../oidc/oidc-templates';
import { englishApiKeyTemplates } from '../api-keys/api-key-templates';
import { englishOrganizationTemplates } from '../organizations/organization-templates';
import { englishPasskeyTemplates } from '../passkeys/passkey-templates';
import type { EmailTemplates } from './types';

const MINUTE = 60_000;
const MINUTES_PER_HOUR = 60;
const MINUTES_PER_DAY = 24 * MINUTES_PER_HOUR;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * "1 hour", "24 hours", "7 days", "90 minutes". Rounds down, so a message never promises more time than the token
 * has; a day count is used only from two days on, as "24 hours" reads better than "1 day" for a deadline.
 */
export function englishDuration(ms: number): string {
  const minutes = Math.max(1, Math.floor(ms / MINUTE));
  if (minutes >= 2 * MINUTES_PER_DAY && minutes % MINUTES_PER_DAY === 0) {
    return plural(minutes / MINUTES_PER_DAY, 'day');
  }
  if (minutes >= MINUTES_PER_HOUR && minutes % MINUTES_PER_HOUR === 0) {
    return plural(minutes / MINUTES_PER_HOUR, 'hour');
  }
  return plural(minutes, 'minute');
}

const render = (subject: string, blocks: Parameters<typeof renderMessage>[1]) => renderMessage(subject, blocks, 'en');

/** The messages shipped with Gatehouse, in English. */
export const englishTemplates: EmailTemplates = {
  ...englishPasskeyTemplates,
  ...englishOidcTemplates,
  ...englishOrganizationTemplates,
  ...englishApiKeyTemplates,
  // Names the account twice: a link confirms one registration only, and anyone can register with any address, so the
  // person must be able to tell an account they did not create from their own before confirming it.
  verification: ({ appName, username, link, expiresInMs }) =>
    render(`Verify your email address for ${appName}`, [
      `Hello ${username},`,
      `Someone signed up to ${appName} with this address and the username ${username}. ` +
        `If that was you, confirm the address for the account ${username} by opening this link:`,
      { label: `Confirm for ${username}`, url: link },
      `If you did not choose the username ${username}, do not confirm: that would give the account ${username} ` +
        `your address. Ignore this message and nothing happens; you can still sign up with this address yourself.`,
      `The link expires in ${englishDuration(expiresInMs)}.`,
    ]),

  passwordReset: ({ appName, username, link, expiresInMs }) =>
    render(`Reset your ${appName} password`, [
      `Hello ${username},`,
      `Someone, hopefully you, asked to reset the password of your ${appName} account. ` +
        'To choose a new password, open this link:',
      { label: 'Choose a new password', url: link },
      `The link expires in ${englishDuration(expiresInMs)} and works once. ` +
        'If you did not ask for a reset, ignore this message: your password stays as it is.',
    ]),

  emailVerified: ({ appName, username, email }) =>
    render(`Your ${appName} email address is verified`, [
      `Hello ${username},`,
      `Your email address ${email} is now verified, and you can sign in to ${appName}.`,
    ]),

  passwordChanged: ({ appName, username }) =>
    render(`Your ${appName} password was changed`, [
      `Hello ${username},`,
      `The password of your ${appName} account was just changed.`,
      'If this wasn\'t you, reset your password right away with the "forgot password" option on the sign-in page.',
    ]),

  accountDeleted: ({ appName, username }) =>
    render(`Your ${appName} account was deleted`, [
      `Hello ${username},`,
      `Your ${appName} account ${username} has been deleted.`,
      'If you did not ask for this, someone knew your password: change it wherever else you use it.',
    ]),

  registrationAttempt: ({ appName, username }) =>
    render(`Someone tried to sign up to ${appName} with your email address`, [
      `Hello ${username},`,
      `Someone just tried to create a new ${appName} account with this email address. ` +
        `It already belongs to your account, ${username}, so the new registration cannot use it.`,
      'If that was you and you forgot your password, reset it with the "forgot password" option on the sign-in page.',
      'If it was not you, you can ignore this message: nothing has changed.',
    ]),

  // Names the account and the address: whoever opens it must be able to tell whether it is their own account whose
  // address is to become this one, as anyone signed in can type any address.
  emailChange: ({ appName, username, email, link, expiresInMs }) =>
    render(`Confirm your new email address for ${appName}`, [
      `Hello ${username},`,
      `Someone signed in to the ${appName} account ${username} asked to make ${email} its email address. ` +
        'If that was you, open this link and confirm the change:',
      { label: `Use this address for ${username}`, url: link },
      `The link expires in ${englishDuration(expiresInMs)} and works once. ` +
        `If you do not know the account ${username}, ignore this message and nothing changes.`,
    ]),

  emailChangeRequested: ({ appName, username }) =>
    render(`A change of your ${appName} email address was requested`, [
      `Hello ${username},`,
      `Someone signed in to your ${appName} account asked to change its email address. ` +
        'Nothing changes unless the link sent to the new address is opened.',
      "If this wasn't you, someone knows your password: change it right away, which also cancels the request.",
    ]),

  emailChanged: ({ appName, username, email }) =>
    render(`Your ${appName} email address was changed`, [
      `Hello ${username},`,
      `The email address of your ${appName} account is no longer ${email}: the change was confirmed from the new ` +
        'address, and messages about the account now go there.',
      "If this wasn't you, contact the service right away: someone who knew your password changed it.",
    ]),

  emailChangeAttempt: ({ appName, username }) =>
    render(`Someone tried to use your email address on ${appName}`, [
      `Hello ${username},`,
      `Someone signed in to another ${appName} account asked to make this address its own. ` +
        `It already belongs to your account, ${username}, so the change cannot happen.`,
      'If it was not you, you can ignore this message: nothing has changed.',
    ]),

  // The four notices of the second factor say what changed and what to do if it was not the person: none carries a
  // code or a link, so a copy read by someone else gives them nothing.
  secondFactorEnabled: ({ appName, username }) =>
    render(`Two-factor sign-in is now on for your ${appName} account`, [
      `Hello ${username},`,
      `Two-factor sign-in was just switched on for your ${appName} account: signing in now asks for a code from ` +
        'your authenticator app (or one of your recovery codes) after the password.',
      "If this wasn't you, someone knows your password: reset your password right away with the " +
        '"forgot password" option on the sign-in page, and contact the service so that the second factor they set ' +
        'up can be removed.',
    ]),

  secondFactorDisabled: ({ appName, username }) =>
    render(`Two-factor sign-in is now off for your ${appName} account`, [
      `Hello ${username},`,
      `Two-factor sign-in was just switched off for your ${appName} account: signing in asks for the password ` +
        'only, and your recovery codes no longer work.',
      'If this wasn\'t you, reset your password right away with the "forgot password" option on the sign-in page, ' +
        'then switch two-factor sign-in on again.',
    ]),

  recoveryCodesRegenerated: ({ appName, username }) =>
    render(`New recovery codes for your ${appName} account`, [
      `Hello ${username},`,
      `New recovery codes were just made for your ${appName} account; the old ones no longer work.`,
      "If this wasn't you, someone has your password and your authenticator: reset your password right away with " +
        'the "forgot password" option on the sign-in page, and contact the service.',
    ]),

  recoveryCodeUsed: ({ appName, username }) =>
    render(`A recovery code was used to sign in to ${appName}`, [
      `Hello ${username},`,
      `Someone just signed in to your ${appName} account with one of your recovery codes. That code no longer ` +
        'works; if you are running low, make new ones on the security page.',
      "If this wasn't you, someone has your password and your recovery codes: reset your password right away with " +
        'the "forgot password" option on the sign-in page, and make new recovery codes.',
    ]),
};
