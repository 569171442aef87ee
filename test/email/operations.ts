import type { EmailSender } from '../../src/email';

export const PUBLIC_URL = 'https://accounts.example.com';
export const PREFIX = '/auth';
export const APP_NAME = 'Acme';
/** Shaped like the core's tokens (base64url), so it needs no encoding in a link. */
export const TOKEN = 'Zx3_kP9-qLm2Vb7nR4tY8wE1uI6oA5sD0fG2hJ4kL6c';

/** The fourteen sender operations (the optional ones included), with what each message must say. */
export interface OperationCase {
  name: string;
  /** The operation's name in EmailDeliveryError messages. */
  key: string;
  send: (sender: EmailSender, username: string, email: string) => Promise<void>;
  subject: string;
  /** The exact link the message must carry, for the three operations with one. */
  link?: string;
}

export const OPERATIONS: OperationCase[] = [
  {
    name: 'verification',
    key: 'verification',
    send: (sender, username, email) =>
      sender.send({ kind: 'verification', username: username, email: email, token: TOKEN }),
    subject: 'Verify your email address for Acme',
    link: `${PUBLIC_URL}${PREFIX}/verify-email?token=${TOKEN}`,
  },
  {
    name: 'password reset',
    key: 'passwordReset',
    send: (sender, username, email) =>
      sender.send({ kind: 'passwordReset', username: username, email: email, token: TOKEN }),
    subject: 'Reset your Acme password',
    link: `${PUBLIC_URL}${PREFIX}/password-reset?token=${TOKEN}`,
  },
  {
    name: 'email verified',
    key: 'emailVerified',
    send: (sender, username, email) => sender.send({ kind: 'emailVerified', username: username, email: email }),
    subject: 'Your Acme email address is verified',
  },
  {
    name: 'password changed',
    key: 'passwordChanged',
    send: (sender, username, email) => sender.send({ kind: 'passwordChanged', username: username, email: email }),
    subject: 'Your Acme password was changed',
  },
  {
    name: 'account deleted',
    key: 'accountDeleted',
    send: (sender, username, email) => sender.send({ kind: 'accountDeleted', username: username, email: email }),
    subject: 'Your Acme account was deleted',
  },
  {
    name: 'registration attempt',
    key: 'registrationAttempt',
    send: (sender, username, email) => sender.send({ kind: 'registrationAttempt', username: username, email: email }),
    subject: 'Someone tried to sign up to Acme with your email address',
  },
  {
    name: 'email change',
    key: 'emailChange',
    send: (sender, username, email) =>
      sender.send({ kind: 'emailChange', username: username, email: email, token: TOKEN }),
    subject: 'Confirm your new email address for Acme',
    link: `${PUBLIC_URL}${PREFIX}/email-change/confirm?token=${TOKEN}`,
  },
  {
    name: 'email change requested',
    key: 'emailChangeRequested',
    send: (sender, username, email) => sender.send({ kind: 'emailChangeRequested', username: username, email: email }),
    subject: 'A change of your Acme email address was requested',
  },
  {
    name: 'email changed',
    key: 'emailChanged',
    send: (sender, username, email) => sender.send({ kind: 'emailChanged', username: username, email: email }),
    subject: 'Your Acme email address was changed',
  },
  {
    name: 'email change attempt',
    key: 'emailChangeAttempt',
    send: (sender, username, email) => sender.send({ kind: 'emailChangeAttempt', username: username, email: email }),
    subject: 'Someone tried to use your email address on Acme',
  },
  {
    name: 'second factor enabled',
    key: 'secondFactorEnabled',
    send: (sender, username, email) => sender.send({ kind: 'secondFactorEnabled', username: username, email: email }),
    subject: 'Two-factor sign-in is now on for your Acme account',
  },
  {
    name: 'second factor disabled',
    key: 'secondFactorDisabled',
    send: (sender, username, email) => sender.send({ kind: 'secondFactorDisabled', username: username, email: email }),
    subject: 'Two-factor sign-in is now off for your Acme account',
  },
  {
    name: 'recovery codes regenerated',
    key: 'recoveryCodesRegenerated',
    send: (sender, username, email) =>
      sender.send({ kind: 'recoveryCodesRegenerated', username: username, email: email }),
    subject: 'New recovery codes for your Acme account',
  },
  {
    name: 'recovery code used',
    key: 'recoveryCodeUsed',
    send: (sender, username, email) => sender.send({ kind: 'recoveryCodeUsed', username: username, email: email }),
    subject: 'A recovery code was used to sign in to Acme',
  },
];

/** The URLs a plain-text body carries. */
export function urlsIn(text: string): string[] {
  return text.match(/https?:\/\/\S+/g) ?? [];
}
