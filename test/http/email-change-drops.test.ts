import { expect } from 'chai';
import { EmailLinks, SmtpEmailSender } from '../../src/email';
import type { OutboxEntry } from '../../src/services/outbox-message';
import { parseMail, smtpError, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { postgresStore } from '../security/support/postgres-store';
import {
  OTHER_PASSWORD,
  openSecurityApp,
  PASSWORD,
  PREFIX,
  bearer,
  sqliteStore,
  type SecurityApp,
  type StoreUnderTest,
} from '../security/support/security-app';
import { requireService, type ServiceName } from '../support/services';

const PUBLIC_URL = 'https://id.example.com';
const FROM = 'Gatehouse <no-reply@example.com>';
/** The address of the change that is dropped: its mail server refuses for now (451), so the link waits unsent. */
const DROPPED = 'dropped@new.example';
const FRESH = 'fresh@new.example';

/** Polls `condition` every 20 ms; fails with `what` after `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A change of address that is superseded or dropped before its link could be sent: the link is never delivered,
 * however long the outbox keeps trying once the new address's server takes mail again, while the link of a new
 * change is. Through the delivery worker and a real SMTP server on loopback.
 */
const STORES: [string, () => Promise<StoreUnderTest>, ServiceName?][] = [
  ['SQLite', sqliteStore],
  ['PostgreSQL', () => postgresStore('email_change_drops'), 'postgres'],
];

for (const [name, openStore, service] of STORES)
  describe(`email change: the link of a dropped or superseded change is never mailed (real SMTP, ${name})`, function () {
    this.timeout(60_000);
    let smtp: SmtpTestServer;
    let sender: SmtpEmailSender;
    let t: SecurityApp<SmtpEmailSender>;
    const refusing = new Set<string>();

    beforeEach(async function () {
      if (service) await requireService(this, service);
      refusing.clear();
      smtp = await startSmtpServer({
        rejectRecipient: (address) => (refusing.has(address) ? smtpError(451, '4.3.0 Try again later') : undefined),
      });
      sender = new SmtpEmailSender({
        url: smtp.url,
        from: FROM,
        links: new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX }),
      });
      t = await openSecurityApp({
        openStore,
        sender,
        accountOptions: { outbox: { retryBaseMs: 100, retryMaxMs: 300, pollIntervalMs: 50 } },
      });
      t.accounts().delivery!.start();
    });

    afterEach(async () => {
      await t?.accounts().delivery?.stop();
      await t?.close();
      await sender?.close();
      await smtp?.close();
    });

    const received = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address));
    const requestChange = (token: string, newEmail: string) =>
      t.http.post(`${PREFIX}/email-change`).set(bearer(token)).send({ new_email: newEmail });

    async function linkTo(address: string): Promise<OutboxEntry | undefined> {
      return (await t.store.outbox.list()).find((entry) => entry.kind === 'emailChange' && entry.email === address);
    }

    /** Registers, verifies and signs in the user over HTTP, reading the mail from the SMTP server. */
    async function signUp(username: string): Promise<string> {
      const email = `${username}@example.com`;
      await t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD });
      await waitFor(() => received(email).length === 1, 'the verification link');
      const [verification] = received(email);
      const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec((await parseMail(verification)).text ?? '')![1];
      await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      return t.login(username);
    }
    const alice = () => signUp('alice');

    /** Asks for the change to `DROPPED` from `token`'s session, and waits until its link has been refused once. */
    async function askForTheDoomedChange(token: string): Promise<void> {
      refusing.add(DROPPED);
      await requestChange(token, DROPPED).expect(200);
      await waitFor(async () => {
        const link = await linkTo(DROPPED);
        return link !== undefined && link.attempts >= 1 && link.status === 'pending' && !link.claimed;
      }, 'a refused attempt at the link');
      expect(smtp.recipientsOffered).to.include(DROPPED);
    }

    /**
     * The dropped link has failed (unsent as `SUPERSEDED`; or, if a worker held it at that moment, `EXPIRED` at its
     * next claim). The server then takes mail again, a new change is asked for, and only its link is delivered.
     */
    async function expectOnlyTheNewLink(token: string): Promise<void> {
      await waitFor(async () => (await linkTo(DROPPED))?.status === 'failed', 'the dropped link to fail');
      expect((await linkTo(DROPPED))?.lastError).to.be.oneOf(['SUPERSEDED', 'EXPIRED']);
      expect((await linkTo(DROPPED))?.hasToken).to.equal(false);
      refusing.clear();
      if ((await linkTo(FRESH)) === undefined) await requestChange(token, FRESH).expect(200);
      await waitFor(() => received(FRESH).length === 1, 'the new link');
      const link = /[?&]token=([A-Za-z0-9_-]{43})/.exec((await parseMail(received(FRESH)[0])).text ?? '')![1];
      // A while more, in which the outbox would have retried the dropped link several times.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(received(DROPPED)).to.deep.equal([]);
      await t.http.post(`${PREFIX}/email-change/confirm`).send({ token: link }).expect(200);
      expect((await t.http.get(`${PREFIX}/me`).set(bearer(token))).body.email).to.equal(FRESH);
    }

    it('a new request supersedes the pending change: its link is never sent, the new one is', async () => {
      const session = await alice();
      await askForTheDoomedChange(session);
      await requestChange(session, FRESH).expect(200);
      await expectOnlyTheNewLink(session);
    });

    it('logout-all drops the pending change: its link is never sent', async () => {
      const session = await alice();
      await askForTheDoomedChange(session);
      await t.http.post(`${PREFIX}/logout-all`).set(bearer(session)).expect(200);
      await expectOnlyTheNewLink(await t.login('alice'));
    });

    it('an administrator ending the account’s sessions drops the pending change: its link is never sent', async () => {
      const session = await alice();
      const root = await signUp('root');
      expect(await t.accounts().admin.makeAdministrator('root')).to.equal(true);
      await askForTheDoomedChange(session);
      const { id } = (await t.store.users.findByUsernameKey('alice'))!;
      await t.http.post(`${PREFIX}/admin/users/${id}/sessions/end`).set(bearer(root)).expect(200);
      await expectOnlyTheNewLink(await t.login('alice'));
    });

    it('ending the other sessions drops a change asked for from one of them: its link is never sent', async () => {
      const elsewhere = await alice();
      const here = await t.login('alice');
      await askForTheDoomedChange(elsewhere);
      await t.http.post(`${PREFIX}/sessions/end-others`).set(bearer(here)).expect(200);
      await expectOnlyTheNewLink(here);
    });

    it('a password change drops the pending change: its link is never sent', async () => {
      const session = await alice();
      await askForTheDoomedChange(session);
      await t.http
        .post(`${PREFIX}/password/change`)
        .set(bearer(session))
        .send({ old_password: PASSWORD, new_password: OTHER_PASSWORD })
        .expect(200);
      await expectOnlyTheNewLink(await t.login('alice', OTHER_PASSWORD));
    });

    it('the link of a change that logout-all dropped answers like a spent one', async () => {
      const session = await alice();
      await requestChange(session, FRESH).expect(200);
      await waitFor(() => received(FRESH).length === 1, 'the link');
      const link = /[?&]token=([A-Za-z0-9_-]{43})/.exec((await parseMail(received(FRESH)[0])).text ?? '')![1];
      await t.http.post(`${PREFIX}/logout-all`).set(bearer(session)).expect(200);

      const refused = await t.http.post(`${PREFIX}/email-change/confirm`).send({ token: link });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.detail.code).to.equal('invalid_email_change_token');
      const unknown = await t.http.post(`${PREFIX}/email-change/confirm`).send({ token: 'x'.repeat(43) });
      expect(refused.body).to.deep.equal(unknown.body);
      expect((await t.http.get(`${PREFIX}/me`).set(bearer(await t.login('alice')))).body.email).to.equal(
        'alice@example.com',
      );
    });
  });
