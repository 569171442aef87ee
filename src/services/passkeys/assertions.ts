import type { AuthenticationResponseJSON, AuthenticatorTransport } from '@simplewebauthn/server';
import type { AccountContext } from '../account-context';
import { anonymous } from '../audit-trail';
import type { AuthMethod, StoredUser } from '../types';
import type { StoredPasskey } from './passkey-records';
import type { RelyingParty } from './relying-party';
import { webauthnLibrary } from './webauthn-library';

/** What an accepted assertion proved. */
export interface AcceptedAssertion {
  passkey: StoredPasskey;
  /** Whether the authenticator verified the person (PIN, biometrics), read from the authenticator data. */
  userVerified: boolean;
  /** `swk` for a passkey that may be synced, `hwk` for one bound to its authenticator. */
  keyMethod: AuthMethod;
}

/** Why an assertion was refused, for the log and the audit trail; the client is told less. */
export type AssertionRefusal = 'unknown_passkey' | 'wrong_account' | 'not_verified' | 'clone_suspected' | 'raced';

/**
 * Verifies an assertion of `passkey` through `@simplewebauthn/server`: the origin is one of the configured ones, the
 * RP ID hash is the configured RP ID's, the challenge is the one just spent, the signature is the passkey's, user
 * presence is set, and user verification when `requireUserVerification` (enforced from the authenticator data, not
 * from what the options asked). Then the counter (WebAuthn §6.1.1): when either counter is non-zero the new one must
 * be greater, else the passkey may have been copied (refused, audited, mailed to its owner); authenticators that
 * always send 0 keep working. The counter is stored by a compare-and-set, so of two racing assertions read at one
 * counter only one passes.
 */
export async function acceptAssertion(
  core: Pick<AccountContext, 'store' | 'clock' | 'audit' | 'logger' | 'messages' | 'delivery'>,
  rp: RelyingParty,
  passkey: StoredPasskey,
  response: AuthenticationResponseJSON,
  answered: string,
  requireUserVerification: boolean,
): Promise<AcceptedAssertion | AssertionRefusal> {
  const { verifyAuthenticationResponse } = await webauthnLibrary();
  let info;
  try {
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: answered,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rpId,
      // The counter is judged below, where a copy can be told apart from any other failure: 0 here never refuses.
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: 0,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification,
    });
    if (!verification.verified) return 'not_verified';
    info = verification.authenticationInfo;
  } catch {
    return 'not_verified';
  }
  const now = core.clock.now();
  if ((info.newCounter > 0 || passkey.counter > 0) && info.newCounter <= passkey.counter) {
    await reportClone(core, passkey, info.newCounter, now);
    return 'clone_suspected';
  }
  const used = await core.store.transaction((tx) =>
    tx.passkeys.use(passkey.id, passkey.counter, info.newCounter, info.credentialBackedUp, now),
  );
  if (!used) return 'raced';
  return {
    passkey,
    userVerified: info.userVerified,
    keyMethod: passkey.backupEligible || info.credentialDeviceType === 'multiDevice' ? 'swk' : 'hwk',
  };
}

/** A counter that did not move on: the owner is told by mail and the trail keeps it; the sign-in was refused. */
async function reportClone(
  core: Pick<AccountContext, 'store' | 'audit' | 'logger' | 'messages' | 'delivery'>,
  passkey: StoredPasskey,
  received: number,
  now: Date,
): Promise<void> {
  const audit = core.audit.event('passkey_clone_suspected', 'refused', anonymous(passkey.userId), {
    passkeyId: passkey.id,
    storedCounter: passkey.counter,
    receivedCounter: received,
  });
  const notice = core.messages.notice('passkeyCloneSuspected', now);
  await core.store.transaction(async (tx) => {
    const user: StoredUser | null = await tx.users.findById(passkey.userId);
    if (user) await tx.outbox.add(notice, user);
    await tx.audit.add(audit);
  });
  core.logger.warn(
    { event: 'passkey_clone_suspected', outcome: 'refused', userId: passkey.userId, passkeyId: passkey.id },
    'a passkey counter did not move on: refused',
  );
  core.delivery?.nudge();
}
