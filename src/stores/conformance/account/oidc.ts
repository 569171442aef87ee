import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type {
  IdentityRemoval,
  StoredIdentity,
  StoredOidcFlow,
  StoredOidcHandoff,
} from '../../../services/oidc/identity-records';
import type { StoredPasskey } from '../../../services/passkeys/passkey-records';
import type { StoredLoginChallenge } from '../../../services/types';
import type { WayInRule } from '../../../services/ways-in';
import { describe, it, HOUR, HOUR_LATER, T0, newUser, token, type ConformanceSuite } from '../support';

const MINUTE = 60_000;
const TEN_MINUTES_LATER = new Date(T0.getTime() + 10 * MINUTE);
const ISSUER = 'https://idp.example.com';
/** A deployment with two providers configured: `corp` (the issuer above) and `github`. */
const CONFIGURED: WayInRule = { identityProviders: ['corp', 'github'] };

/** Provider identities (`tx.oidc`, `store.oidc`), their flows and handoffs, and the rule of the last way in. */
export function describeOidc(suite: ConformanceSuite): void {
  const { registered, transaction } = suite;
  const reads = () => suite.store.oidc;

  const identityOf = (userId: string, subject: string, overrides: Partial<StoredIdentity> = {}): StoredIdentity => ({
    id: randomUUID(),
    userId,
    provider: 'corp',
    issuer: ISSUER,
    subject,
    email: `${subject}@corp.example.com`,
    createdAt: new Date(T0),
    lastUsedAt: null,
    ...overrides,
  });
  const flowOf = (label: string, overrides: Partial<StoredOidcFlow> = {}): StoredOidcFlow => ({
    stateHash: `state-${label}`,
    provider: 'corp',
    browserHash: `browser-${label}`,
    sealed: `v1.sealed-${label}`,
    intent: 'sign_in',
    userId: null,
    sessionId: null,
    returnTo: 'https://app.example.com/oidc/return',
    createdAt: new Date(T0),
    expiresAt: new Date(TEN_MINUTES_LATER),
    ...overrides,
  });
  const handoffOf = (label: string, overrides: Partial<StoredOidcHandoff> = {}): StoredOidcHandoff => ({
    codeHash: `code-${label}`,
    outcome: 'link_required',
    userId: null,
    identityId: null,
    methods: [],
    skipSecondFactor: false,
    ip: '198.51.100.4',
    userAgent: 'Browser',
    createdAt: new Date(T0),
    expiresAt: new Date(TEN_MINUTES_LATER),
    ...overrides,
  });
  const passkeyOf = (userId: string, label: string): StoredPasskey => ({
    id: randomUUID(),
    userId,
    credentialId: `credential-${label}`,
    publicKey: `public-key-${label}`,
    counter: 0,
    userHandle: `handle-of-${userId}`,
    name: `Passkey ${label}`,
    transports: [],
    aaguid: '00000000-0000-0000-0000-000000000000',
    backupEligible: false,
    backedUp: false,
    userVerified: true,
    createdAt: new Date(T0),
    lastUsedAt: null,
  });

  const link = (identity: StoredIdentity) => transaction((tx) => tx.oidc.link(identity));
  const linked = async (identity: StoredIdentity): Promise<StoredIdentity> => {
    assert.equal(await link(identity), 'linked');
    return identity;
  };
  const unlink = (userId: string, id: string, wayIn: WayInRule | null, now = HOUR_LATER): Promise<IdentityRemoval> =>
    transaction((tx) => tx.oidc.unlink(userId, id, now, wayIn));
  const consumeFlow = (hash: string, now = new Date(T0.getTime() + MINUTE)) =>
    transaction((tx) => tx.oidc.consumeFlow(hash, now));
  const consumeHandoff = (hash: string, now = new Date(T0.getTime() + MINUTE)) =>
    transaction((tx) => tx.oidc.consumeHandoff(hash, now));
  /** A user with no password, as a first sign-in through a provider makes one. */
  const passwordless = (label: string) => registered(label, { passwordHash: null });

  describe('provider identities', () => {
    it('link stores an identity as given, and list and find read it, inside and outside a transaction', async () => {
      const { user } = await registered('alice');
      const later = await linked(identityOf(user.id, 'later', { createdAt: new Date(T0.getTime() + MINUTE) }));
      const first = await linked(
        identityOf(user.id, 'first', { provider: 'github', issuer: 'https://github.com', email: null }),
      );

      assert.deepEqual(await reads().list(user.id), [first, later], 'oldest first');
      assert.deepEqual(await reads().find('https://github.com', 'first'), first);
      assert.equal(await reads().find(ISSUER, 'first'), null, 'an identity is the pair (issuer, subject)');
      assert.equal(await reads().find(ISSUER, 'unknown'), null);
      assert.deepEqual(await reads().list('no-such-user'), []);
      const inside = await transaction(async (tx) => ({
        list: await tx.oidc.list(user.id),
        found: await tx.oidc.find(ISSUER, 'later'),
      }));
      assert.deepEqual(inside, { list: [first, later], found: later });
      assert.equal((await suite.store.users.findById(user.id))?.updatedAt.getTime(), T0.getTime());
    });

    it('keeps a subject with spaces and an issuer with a path whole', async () => {
      const { user } = await registered('bob');
      const odd = await linked(identityOf(user.id, 'a subject with spaces', { issuer: 'https://idp.example.com/t/1' }));
      assert.deepEqual(await reads().find('https://idp.example.com/t/1', 'a subject with spaces'), odd);
      assert.equal(await reads().find('https://idp.example.com/t/1', 'a subject'), null);
    });

    it('link refuses an identity stored already, for any account (duplicate), and a gone user (gone), writing nothing', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const stored = await linked(identityOf(alice.id, 'shared'));

      assert.equal(await link(identityOf(bob.id, 'shared', { provider: 'other' })), 'duplicate');
      assert.equal(await link(identityOf(alice.id, 'shared')), 'duplicate');
      assert.equal(await link(identityOf('no-such-user', 'other')), 'gone');
      assert.deepEqual(await reads().list(bob.id), []);
      assert.deepEqual(await reads().list(alice.id), [stored]);
      assert.equal(await reads().find(ISSUER, 'other'), null);
      assert.equal((await suite.store.users.findById(bob.id))?.updatedAt.getTime(), bob.updatedAt.getTime());
    });

    it('touch records the last use; an unknown identity changes nothing', async () => {
      const { user } = await registered('carol');
      const identity = await linked(identityOf(user.id, 'carol'));

      await transaction((tx) => tx.oidc.touch(identity.id, HOUR_LATER));
      await transaction((tx) => tx.oidc.touch(randomUUID(), HOUR_LATER));
      assert.deepEqual(await reads().find(ISSUER, 'carol'), { ...identity, lastUsedAt: HOUR_LATER });
    });

    it('addressHeld: a verified account, or an unverified one created after the cut-off, holds the address', async () => {
      const { user: verified } = await suite.verifiedWithSession('dave');
      await registered('erin', { createdAt: new Date(T0.getTime() + HOUR) });

      assert.equal(await reads().addressHeld(verified.emailKey, HOUR_LATER), true, 'verified, whenever created');
      assert.equal(await reads().addressHeld('erin@example.com', T0), true, 'unverified, created after');
      assert.equal(await reads().addressHeld('erin@example.com', HOUR_LATER), false, 'created at the cut-off');
      assert.equal(await reads().addressHeld('nobody@example.com', new Date(0)), false);
      assert.equal(await transaction((tx) => tx.oidc.addressHeld('erin@example.com', T0)), true);
    });

    it('unlink removes the user’s identity and sets its updatedAt; another user’s or an unknown one is not_found', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const identity = await linked(identityOf(alice.id, 'alice'));

      assert.deepEqual(await unlink(bob.id, identity.id, null), { outcome: 'not_found' });
      assert.deepEqual(await unlink(alice.id, randomUUID(), CONFIGURED), { outcome: 'not_found' });
      assert.deepEqual(await unlink('no-such-user', identity.id, null), { outcome: 'not_found' });
      const removal = await unlink(alice.id, identity.id, CONFIGURED);
      assert.equal(removal.outcome, 'removed', 'a password is a way in');
      if (removal.outcome !== 'removed') return;
      assert.deepEqual(removal.identity, identity);
      assert.equal(removal.user.id, alice.id);
      assert.equal(removal.user.updatedAt.getTime(), HOUR_LATER.getTime());
      assert.equal((await suite.store.users.findById(alice.id))?.updatedAt.getTime(), HOUR_LATER.getTime());
      assert.deepEqual(await reads().list(alice.id), []);
      assert.deepEqual(await unlink(alice.id, identity.id, null), { outcome: 'not_found' });
      assert.equal(await link(identityOf(bob.id, 'alice')), 'linked', 'the identity is free again');
    });

    it('unlink with a way-in rule refuses the last way in; without one, removes it', async () => {
      const { user } = await passwordless('frank');
      const first = await linked(identityOf(user.id, 'first'));
      const second = await linked(identityOf(user.id, 'second', { provider: 'github' }));

      assert.equal((await unlink(user.id, first.id, CONFIGURED)).outcome, 'removed', 'another identity is left');
      assert.deepEqual(await unlink(user.id, second.id, CONFIGURED), { outcome: 'last_way_in' });
      assert.deepEqual(await reads().list(user.id), [second], 'a refusal changes nothing');
      assert.equal((await unlink(user.id, second.id, null)).outcome, 'removed', 'the operator may');
      assert.deepEqual(await reads().list(user.id), []);
    });

    it('an identity of a provider no longer configured is no way in; a passkey is one', async () => {
      const { user } = await passwordless('grace');
      const current = await linked(identityOf(user.id, 'current'));
      await linked(identityOf(user.id, 'removed-provider', { provider: 'gone' }));

      assert.deepEqual(await unlink(user.id, current.id, CONFIGURED), { outcome: 'last_way_in' });
      assert.equal(await transaction((tx) => tx.passkeys.add(passkeyOf(user.id, 'grace'))), 'added');
      assert.equal((await unlink(user.id, current.id, CONFIGURED)).outcome, 'removed');
    });

    it('a passkey’s removal counts the identities of configured providers as ways in', async () => {
      const { user } = await passwordless('heidi');
      const passkey = passkeyOf(user.id, 'heidi');
      assert.equal(await transaction((tx) => tx.passkeys.add(passkey)), 'added');
      await linked(identityOf(user.id, 'heidi', { provider: 'github' }));
      const removePasskey = (rule: WayInRule) =>
        transaction((tx) => tx.passkeys.remove(user.id, passkey.id, HOUR_LATER, rule));

      assert.deepEqual(await removePasskey({ identityProviders: ['corp'] }), { outcome: 'last_way_in' });
      assert.deepEqual(await removePasskey({ identityProviders: [] }), { outcome: 'last_way_in' });
      assert.equal((await removePasskey(CONFIGURED)).outcome, 'removed');
    });

    it('unlink with a way-in rule, raced for a passwordless user’s last two identities, removes exactly one', async () => {
      const { user } = await passwordless('ivan');
      const first = await linked(identityOf(user.id, 'first'));
      const second = await linked(identityOf(user.id, 'second'));

      const outcomes = await Promise.all([
        unlink(user.id, first.id, CONFIGURED),
        unlink(user.id, second.id, CONFIGURED),
      ]);
      assert.deepEqual(outcomes.map((removal) => removal.outcome).sort(), ['last_way_in', 'removed']);
      assert.equal((await reads().list(user.id)).length, 1);
    });

    it('link, raced with one identity by two users, is linked exactly once; the other is duplicate', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const outcomes = await Promise.all([link(identityOf(alice.id, 'raced')), link(identityOf(bob.id, 'raced'))]);

      assert.deepEqual([...outcomes].sort(), ['duplicate', 'linked']);
      const winner = outcomes[0] === 'linked' ? alice : bob;
      assert.equal((await reads().find(ISSUER, 'raced'))?.userId, winner.id);
      assert.equal((await reads().list(alice.id)).length + (await reads().list(bob.id)).length, 1);
    });

    /** A first sign-in as the service makes one: a new account without a password, and its identity, together. */
    const firstSignIn = (label: string, subject: string) => {
      const user = newUser(label, { passwordHash: null });
      return transaction(async (tx) => {
        const created = await tx.users.create(user, token(user.id, 'verify_email', HOUR_LATER, `verify-${label}`));
        assert.ok(created.ok);
        const outcome = await tx.oidc.link(identityOf(user.id, subject));
        // A duplicate undoes the account made for it.
        if (outcome !== 'linked') throw new Error(`link: ${outcome}`);
        return user.id;
      });
    };

    it('two first sign-ins of one identity at once (a new account each, linked in its transaction): one account results', async () => {
      const settled = await Promise.allSettled([
        firstSignIn('racer-a', 'first-sign-in'),
        firstSignIn('racer-b', 'first-sign-in'),
      ]);

      const won = settled.filter((result): result is PromiseFulfilledResult<string> => result.status === 'fulfilled');
      const lost = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.match(String(lost[0].reason), /link: duplicate/);
      const winner = won[0].value;
      assert.equal((await reads().find(ISSUER, 'first-sign-in'))?.userId, winner);
      const users = await Promise.all(['racer-a', 'racer-b'].map((name) => suite.store.users.findByUsernameKey(name)));
      assert.deepEqual(
        users.filter((user) => user !== null).map((user) => user.id),
        [winner],
        "the loser's account was rolled back with its link",
      );
    });

    it('a link from a signed-in account racing a first sign-in of that identity: one holds it, a lost sign-in leaves no account', async () => {
      const { user: alice } = await registered('alice');
      const [linkedToAlice, signedIn] = await Promise.allSettled([
        link(identityOf(alice.id, 'contested')),
        firstSignIn('newcomer', 'contested'),
      ]);

      assert.equal(linkedToAlice.status, 'fulfilled');
      const aliceWon = linkedToAlice.status === 'fulfilled' && linkedToAlice.value === 'linked';
      const newcomer = await suite.store.users.findByUsernameKey('newcomer');
      if (aliceWon) {
        assert.equal(signedIn.status, 'rejected');
        assert.equal(newcomer, null, 'the account made for the sign-in was rolled back');
      } else {
        assert.equal(linkedToAlice.status === 'fulfilled' && linkedToAlice.value, 'duplicate');
        assert.equal(signedIn.status, 'fulfilled');
        assert.ok(newcomer);
      }
      assert.equal((await reads().find(ISSUER, 'contested'))?.userId, aliceWon ? alice.id : newcomer?.id);
    });

    it('a link racing an unlink of the user’s last identity: decided one after the other, a way in is kept', async () => {
      const { user } = await passwordless('judy');
      const last = await linked(identityOf(user.id, 'last'));
      const [removal, outcome] = await Promise.all([
        unlink(user.id, last.id, CONFIGURED),
        link(identityOf(user.id, 'new')),
      ]);

      assert.equal(outcome, 'linked');
      const left = (await reads().list(user.id)).map((identity) => identity.subject).sort();
      if (removal.outcome === 'removed') assert.deepEqual(left, ['new'], 'the link went first: it is the way in');
      else {
        assert.equal(removal.outcome, 'last_way_in');
        assert.deepEqual(left, ['last', 'new'], 'the unlink went first: refused');
      }
    });

    it('a link to another account racing an unlink of that identity: the identity ends with one account or none', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const identity = await linked(identityOf(alice.id, 'moving'));
      const [removal, outcome] = await Promise.all([
        unlink(alice.id, identity.id, CONFIGURED),
        link(identityOf(bob.id, 'moving')),
      ]);

      assert.equal(removal.outcome, 'removed');
      const holder = (await reads().find(ISSUER, 'moving'))?.userId ?? null;
      assert.equal(holder, outcome === 'linked' ? bob.id : null);
      assert.deepEqual(await reads().list(alice.id), []);
    });

    it('returns copies: changing what it returned or was given changes nothing stored', async () => {
      const { user } = await registered('kate');
      const given = identityOf(user.id, 'kate');
      await linked(given);
      const expected = { ...given, createdAt: new Date(given.createdAt) };
      given.email = 'changed@example.com';
      given.createdAt.setTime(0);

      const [listed] = await reads().list(user.id);
      assert.deepEqual(listed, expected);
      listed.provider = 'changed';
      listed.createdAt.setTime(0);
      assert.deepEqual(await reads().find(ISSUER, 'kate'), expected);

      const handoff = handoffOf('copied', { methods: ['fed'] });
      await transaction((tx) => tx.oidc.createHandoff(handoff));
      handoff.methods.push('mfa');
      handoff.expiresAt.setTime(0);
      assert.deepEqual(await consumeHandoff('code-copied'), handoffOf('copied', { methods: ['fed'] }));
    });

    it('goes with its user: deleting the user removes its identities, link flows and handoffs, not a sign-in’s flow', async () => {
      const { user } = await registered('leo');
      await linked(identityOf(user.id, 'leo'));
      const session = await suite.sessionFor(user.id, 'leo');
      await transaction(async (tx) => {
        await tx.oidc.createFlow(flowOf('link', { intent: 'link', userId: user.id, sessionId: session.id }));
        await tx.oidc.createFlow(flowOf('sign-in'));
        await tx.oidc.createHandoff(handoffOf('leo', { outcome: 'sign_in', userId: user.id, methods: ['fed'] }));
      });

      assert.equal((await suite.deleteUser(user.id)).outcome, 'deleted');
      assert.equal(await reads().find(ISSUER, 'leo'), null);
      assert.deepEqual(await reads().list(user.id), []);
      assert.equal(await consumeFlow('state-link'), null);
      assert.equal(await consumeHandoff('code-leo'), null);
      assert.ok(await consumeFlow('state-sign-in'));
      const { user: again } = await registered('leo2');
      assert.equal(await link(identityOf(again.id, 'leo')), 'linked', 'its identity is free again');
    });

    it('a write of a transaction that fails is undone', async () => {
      const { user } = await registered('mallory');
      await assert.rejects(
        transaction(async (tx) => {
          await tx.oidc.link(identityOf(user.id, 'undone'));
          await tx.oidc.createFlow(flowOf('undone'));
          await tx.oidc.createHandoff(handoffOf('undone'));
          throw new Error('work failed');
        }),
        /work failed/,
      );
      assert.deepEqual(await reads().list(user.id), []);
      assert.equal(await consumeFlow('state-undone'), null);
      assert.equal(await consumeHandoff('code-undone'), null);
    });
  });

  describe('OpenID flows and handoffs', () => {
    it('consumeFlow returns a live flow as stored, once', async () => {
      const { user } = await registered('alice');
      const stored = [flowOf('in'), flowOf('link', { intent: 'link', userId: user.id, sessionId: 'session-id' })];
      for (const flow of stored) await transaction((tx) => tx.oidc.createFlow(flow));

      for (const flow of stored) {
        assert.deepEqual(await consumeFlow(flow.stateHash), flow);
        assert.equal(await consumeFlow(flow.stateHash), null, 'gone after its first use');
      }
      assert.equal(await consumeFlow('state-unknown'), null);
    });

    it('consumeHandoff returns a live handoff as stored, once', async () => {
      const { user } = await registered('bob');
      const stored = [
        handoffOf('required'),
        handoffOf('sign-in', {
          outcome: 'sign_in',
          userId: user.id,
          identityId: randomUUID(),
          methods: ['fed', 'mfa'],
          skipSecondFactor: true,
          ip: null,
          userAgent: null,
        }),
      ];
      for (const handoff of stored) await transaction((tx) => tx.oidc.createHandoff(handoff));

      for (const handoff of stored) {
        assert.deepEqual(await consumeHandoff(handoff.codeHash), handoff);
        assert.equal(await consumeHandoff(handoff.codeHash), null, 'gone after its first use');
      }
      assert.equal(await consumeHandoff('code-unknown'), null);
    });

    it('an expired flow or handoff answers null and is deleted', async () => {
      await transaction(async (tx) => {
        await tx.oidc.createFlow(flowOf('old'));
        await tx.oidc.createHandoff(handoffOf('old'));
      });

      assert.equal(await consumeFlow('state-old', TEN_MINUTES_LATER), null, 'dead from its expiresAt');
      assert.equal(await consumeFlow('state-old', new Date(T0)), null, 'deleted, not only refused');
      assert.equal(await consumeHandoff('code-old', TEN_MINUTES_LATER), null);
      assert.equal(await consumeHandoff('code-old', new Date(T0)), null);
    });

    it('consumeFlow and consumeHandoff, raced by two callers each, give each to exactly one', async () => {
      const flow = flowOf('raced');
      const handoff = handoffOf('raced');
      await transaction(async (tx) => {
        await tx.oidc.createFlow(flow);
        await tx.oidc.createHandoff(handoff);
      });

      const flows = await Promise.all([consumeFlow('state-raced'), consumeFlow('state-raced')]);
      assert.deepEqual(
        flows.filter((result) => result !== null),
        [flow],
      );
      const handoffs = await Promise.all([consumeHandoff('code-raced'), consumeHandoff('code-raced')]);
      assert.deepEqual(
        handoffs.filter((result) => result !== null),
        [handoff],
      );
    });

    it('deleteExpired removes the expired flows and handoffs and keeps the live ones', async () => {
      const { user } = await registered('carol');
      await transaction(async (tx) => {
        await tx.oidc.createFlow(flowOf('expired', { expiresAt: new Date(T0) }));
        await tx.oidc.createFlow(flowOf('expired-link', { intent: 'link', userId: user.id, expiresAt: new Date(T0) }));
        await tx.oidc.createFlow(flowOf('live'));
        await tx.oidc.createHandoff(handoffOf('expired', { expiresAt: new Date(T0) }));
        await tx.oidc.createHandoff(handoffOf('live'));
      });

      assert.equal(await suite.store.deleteExpired({ now: new Date(T0), sessionIdleBefore: new Date(0) }), 3);
      const before = new Date(T0.getTime() - 1);
      assert.equal(await consumeFlow('state-expired', before), null);
      assert.equal(await consumeFlow('state-expired-link', before), null);
      assert.equal(await consumeHandoff('code-expired', before), null);
      assert.ok(await consumeFlow('state-live'));
      assert.ok(await consumeHandoff('code-live'));
    });
  });

  describe('login challenges: the first factor', () => {
    it('a challenge keeps what its first step proved (a password, or a provider)', async () => {
      const { user } = await registered('dave');
      const challengeOf = (label: string, firstFactor: 'pwd' | 'fed'): StoredLoginChallenge => ({
        tokenHash: `challenge-${label}`,
        userId: user.id,
        credentialEpoch: 0,
        attempts: 0,
        createdAt: new Date(T0),
        expiresAt: new Date(TEN_MINUTES_LATER),
        ip: null,
        userAgent: null,
        firstFactor,
      });
      await transaction(async (tx) => {
        await tx.loginChallenges.create(challengeOf('fed', 'fed'));
        await tx.loginChallenges.create(challengeOf('pwd', 'pwd'));
      });
      const at = new Date(T0.getTime() + MINUTE);

      assert.equal((await suite.store.loginChallenges.find('challenge-fed', at))?.firstFactor, 'fed');
      assert.equal((await suite.store.loginChallenges.find('challenge-pwd', at))?.firstFactor, 'pwd');
      const taken = await transaction((tx) => tx.loginChallenges.takeAttempt('challenge-fed', at, 5));
      assert.deepEqual(taken, { ...challengeOf('fed', 'fed'), attempts: 1 });
    });
  });
}
