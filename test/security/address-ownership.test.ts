import { expect } from 'chai';
import { requireService, type ServiceName } from '../support/services';
import { DAY, HOUR, ManualClock } from '../support/manual-clock';
import { expectError, observable } from './support/answers';
import { postgresStore } from './support/postgres-store';
import {
  bearer,
  openSecurityApp,
  OTHER_PASSWORD,
  PASSWORD,
  PREFIX,
  SecurityApp,
  sqliteStore,
  StoreUnderTest,
} from './support/security-app';

const VICTIM = 'victim@example.com';

/**
 * Account pre-hijacking (issue 22): an address belongs to the registration whose own link is confirmed, whichever
 * registered first, and registration looks the same for a free, a claimed and an owned address (issue 13).
 */
function describeAddressOwnership(name: string, openStore: () => Promise<StoreUnderTest>, service?: ServiceName): void {
  describe(`Security checklist: an address belongs to whoever proves it (${name})`, function () {
    let t: SecurityApp;
    let clock: ManualClock;
    beforeEach(async function () {
      if (service) await requireService(this, service);
      clock = new ManualClock(Date.now());
      t = await openSecurityApp({ openStore, clock, accountOptions: { unverifiedRegistrationTtlMs: 7 * DAY } });
    });
    afterEach(async () => {
      await t?.close();
    });

    const login = (username: string, password: string) => t.http.post(`${PREFIX}/login`).send({ username, password });
    const verify = (token: string) => t.http.post(`${PREFIX}/verify-email`).send({ token });
    /** The link mailed to `email` for the registration named `username`. */
    const linkFor = (username: string, email = VICTIM) => {
      const mails = t.sender.of('sendVerification', email).filter((mail) => mail.username === username);
      expect(mails, `a link for ${username}`).to.not.have.length(0);
      return mails.at(-1)!.token!;
    };

    async function victimOwnsTheAddress(): Promise<void> {
      await verify(linkFor('vicky')).expect(200);
      const session = (await login('vicky', PASSWORD).expect(200)).body.access_token as string;
      const me = await t.http.get(`${PREFIX}/me`).set(bearer(session)).expect(200);
      expect(me.body).to.deep.equal({ username: 'vicky', email: VICTIM, verified: true });
      // The attacker's registration ended with the confirmation: no session, before or after trying its own link.
      expectError(await login('mallory', OTHER_PASSWORD), 401, 'invalid_credentials');
      expectError(await verify(linkFor('mallory')), 400, 'invalid_verification_token');
      expectError(await login('mallory', OTHER_PASSWORD), 401, 'invalid_credentials');
    }

    it('the attacker registers first, the victim second: the victim confirms their own link and owns the address', async () => {
      await t.register('mallory', VICTIM, OTHER_PASSWORD).then((answer) => expect(answer.status).to.equal(201));
      await t.register('vicky', VICTIM, PASSWORD).then((answer) => expect(answer.status).to.equal(201));
      expectError(await login('mallory', OTHER_PASSWORD), 403, 'unverified_user');
      // Each mail names its registration's username, so the victim can tell which link is theirs.
      expect(t.sender.of('sendVerification', VICTIM).map((mail) => mail.username)).to.deep.equal(['mallory', 'vicky']);
      await victimOwnsTheAddress();
    });

    it('the victim registers first, the attacker second: the same', async () => {
      await t.register('vicky', VICTIM, PASSWORD).then((answer) => expect(answer.status).to.equal(201));
      await t.register('mallory', VICTIM, OTHER_PASSWORD).then((answer) => expect(answer.status).to.equal(201));
      await victimOwnsTheAddress();
    });

    it('confirming the attacker’s link makes the attacker the owner only by the victim’s own choice, and ends the rest', async () => {
      await t.register('mallory', VICTIM, OTHER_PASSWORD);
      await t.register('vicky', VICTIM, PASSWORD);
      await verify(linkFor('mallory')).expect(200);
      expectError(await verify(linkFor('vicky')), 400, 'invalid_verification_token');
      expectError(await login('vicky', PASSWORD), 401, 'invalid_credentials');
      // vicky's username is free again, and a new registration of the owned address only tells its owner.
      expect((await t.register('vicky', VICTIM, PASSWORD)).status).to.equal(201);
      expect(t.sender.of('sendRegistrationAttempt', VICTIM).map((mail) => mail.username)).to.deep.equal(['mallory']);
    });

    it('after verification, a later registration of the address changes nothing and its owner gets the notice', async () => {
      await t.createUser('vicky', VICTIM, PASSWORD);
      t.sender.sent.length = 0;
      expect((await t.register('mallory', 'Victim@Example.com', OTHER_PASSWORD)).status).to.equal(201);
      expect(t.sender.of('sendVerification')).to.deep.equal([]);
      expect(t.sender.of('sendRegistrationAttempt').map((mail) => [mail.username, mail.email])).to.deep.equal([
        ['vicky', VICTIM],
      ]);
      await t.http.post(`${PREFIX}/resend-verification`).send({ email: VICTIM }).expect(200);
      await t.drain();
      expect(t.sender.of('sendVerification'), 'resend sends no link to an owned address').to.deep.equal([]);
      expectError(await login('mallory', OTHER_PASSWORD), 403, 'unverified_user');
      const session = await t.login('vicky', PASSWORD);
      await t.http
        .get(`${PREFIX}/me`)
        .set(bearer(session))
        .expect(200, { username: 'vicky', email: VICTIM, verified: true });
    });

    it('free, claimed and owned addresses: the same answer, later login, username availability and resend', async () => {
      await t.createUser('owner', 'owned@example.com', PASSWORD);
      await t.register('claimer', 'claimed@example.com', PASSWORD);
      const probe = async (username: string, email: string) => ({
        register: observable(
          await t.http.post(`${PREFIX}/register`).send({ username, email, password: OTHER_PASSWORD }),
        ),
        login: observable(await login(username, OTHER_PASSWORD)),
        taken: observable(
          await t.http.post(`${PREFIX}/register`).send({ username, email: 'x@example.com', password: OTHER_PASSWORD }),
        ),
        resend: observable(await t.http.post(`${PREFIX}/resend-verification`).send({ email })),
      });
      const free = await probe('probe-free', 'free@example.com');
      expect([free.register.status, free.login.status, free.taken.status, free.resend.status]).to.deep.equal([
        201, 403, 409, 200,
      ]);
      expect(await probe('probe-claimed', 'claimed@example.com')).to.deep.equal(free);
      expect(await probe('probe-owned', 'owned@example.com')).to.deep.equal(free);
      // The same rows on every path: a user and a token each, whatever the address (timing: see BENCHMARKS.md).
      const dump = await t.dump();
      const probes = dump.get('users')!.filter((row) => String(row.username).startsWith('probe-'));
      expect(probes.map((row) => Number(row.verified))).to.deep.equal([0, 0, 0]);
      const tokens = dump.get('tokens')!.filter((row) => probes.some((user) => user.id === row.user_id));
      expect(tokens).to.have.length(3);
    });

    it('an unverified registration expires: no login, no link, no resend, and its username and address are free', async () => {
      await t.register('early', VICTIM, OTHER_PASSWORD);
      const earlyLink = linkFor('early');
      clock.advance(7 * DAY - HOUR);
      await t.http.post(`${PREFIX}/resend-verification`).send({ email: VICTIM }).expect(200);
      await t.drain();
      // A resent link never outlives its registration: the hour left, not the usual day.
      const resent = linkFor('early');
      expect(resent).to.not.equal(earlyLink);
      clock.advance(HOUR);

      expectError(await login('early', OTHER_PASSWORD), 401, 'invalid_credentials');
      expectError(await verify(resent), 400, 'invalid_verification_token');
      t.sender.sent.length = 0;
      await t.http.post(`${PREFIX}/resend-verification`).send({ email: VICTIM }).expect(200);
      await t.drain();
      expect(t.sender.of('sendVerification')).to.deep.equal([]);

      // The username is free at once, before the clean-up; the clean-up then removes what is left.
      expect((await t.register('early', 'someone@example.com', PASSWORD)).status).to.equal(201);
      await t.register('late', VICTIM, PASSWORD);
      await verify(linkFor('late')).expect(200);
      await t.createUser('stale-owner', 'stale@example.com', PASSWORD);
      await t.register('stale', 'stale-claim@example.com', PASSWORD);
      clock.advance(7 * DAY);
      expect(await t.accounts().removeExpired()).to.be.at.least(2);
      const left = (await t.dump())
        .get('users')!
        .map((row) => row.username)
        .sort();
      expect(left).to.deep.equal(['late', 'stale-owner']);
    });
  });
}

describeAddressOwnership('SQLite', sqliteStore);
describeAddressOwnership('PostgreSQL', () => postgresStore('security_ownership'), 'postgres');
