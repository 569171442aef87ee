import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AccountOptions } from '../../src/services/account-options';
import { OPERATOR } from '../../src/services/admin-views';
import { isWellFormedApiKey, lastFourOf, mintApiKey } from '../../src/services/api-keys/api-key-format';
import type { ApiKeyInput } from '../../src/services/api-keys/api-key-views';
import { expectAccountError } from '../support/expect-account-error';
import { DAY, MINUTE } from '../support/manual-clock';
import { OTHER_PASSWORD, STRONG_PASSWORD } from '../support/core-harness';
import { TEST_STORES } from '../support/test-stores';
import { freshKeyWorld, hashOf, REPORTER_PERMISSIONS, type KeyWorld } from './api-key-service-support';

const READ: ApiKeyInput = { name: 'ci', scopes: ['reports.read'] };

// Memory, SQLite in a real file, and PostgreSQL (skipped without a server, failed with CI=true).
for (const kind of TEST_STORES) {
  describe(`API keys service (${kind.name} store)`, () => {
    let options: Partial<AccountOptions> = {};
    beforeEach(() => {
      options = {};
    });
    const world = freshKeyWorld(kind, () => options);

    /** alice holds `reporter` (reports.read, reports.write). */
    async function alice(w: KeyWorld) {
      await w.role('reporter', REPORTER_PERMISSIONS);
      return w.person('alice', ['reporter']);
    }

    describe('creation', () => {
      it('answers the key once, well formed, and lists it without the key', async () => {
        const w = world();
        const a = await alice(w);
        const created = await w.accounts.apiKeys.create(a.token, {
          name: '  deploy bot ',
          scopes: ['reports.write', 'reports.read', 'reports.read'],
        });
        expect(isWellFormedApiKey(created.key, 'gatehouse')).to.equal(true);
        expect(created.key).to.have.length('gatehouse_'.length + 38);
        expect(created.apiKey).to.deep.include({
          name: 'deploy bot',
          lastFour: lastFourOf(created.key),
          scopes: ['reports.read', 'reports.write'],
          expired: false,
          lastUsedAt: null,
          lastUsedIp: null,
          createdBy: { id: a.id, username: 'alice' },
        });
        expect(created.apiKey.expiresAt.getTime() - created.apiKey.createdAt.getTime()).to.equal(30 * DAY);
        const listed = await w.accounts.apiKeys.list(a.token);
        expect(listed).to.deep.equal([created.apiKey]);
        expect(JSON.stringify(listed)).not.to.include(created.key.slice(10, 30));
        // Stored as its keyed hash: the hash finds it, with the scopes.
        const check = await w.store.apiKeys.check(hashOf(created.key));
        expect(check?.keyId).to.equal(created.apiKey.id);
        expect(check?.scopes).to.deep.equal(['reports.read', 'reports.write']);
      });

      it('uses the configured prefix', async () => {
        options = { apiKeyPrefix: 'acme_live' };
        const w = world();
        const a = await alice(w);
        const { key } = await w.accounts.apiKeys.create(a.token, READ);
        expect(key.startsWith('acme_live_')).to.equal(true);
        expect(isWellFormedApiKey(key, 'acme_live')).to.equal(true);
        expect(w.accounts.apiKeys.prefix).to.equal('acme_live');
      });

      it('needs a recent password proof, and nothing is created without one', async () => {
        const w = world();
        const a = await alice(w);
        w.clock.advance(11 * MINUTE);
        await expectAccountError(w.accounts.apiKeys.create(a.token, READ), 'reauthentication_required');
        await expectAccountError(w.accounts.apiKeys.create('not-a-session', READ), 'invalid_session_token');
        expect(await w.accounts.apiKeys.list(a.token)).to.deep.equal([]);
        await w.accounts.sessions.reauthenticate(a.token, STRONG_PASSWORD);
        await w.accounts.apiKeys.create(a.token, READ);
        expect(await w.accounts.apiKeys.list(a.token)).to.have.length(1);
      });

      it('refuses scopes not held now, wildcards, Gatehouse permissions and empty lists, naming the scope', async () => {
        const w = world();
        const a = await alice(w);
        await w.role('billing', ['billing.read']);
        const refused: [unknown, string | undefined][] = [
          [['reports.read', 'billing.read'], 'billing.read'],
          [['reports.delete'], 'reports.delete'],
          [['*'], '*'],
          [['reports.*'], 'reports.*'],
          [['gatehouse.users.read'], 'gatehouse.users.read'],
          [['Gatehouse.Users.Read'], 'Gatehouse.Users.Read'],
          [[], undefined],
          ['reports.read', undefined],
          [[42], undefined],
          [[''], undefined],
          [Array.from({ length: 65 }, (_, i) => `p${i}`), undefined],
          [undefined, undefined],
        ];
        for (const [scopes, named] of refused) {
          const error = await expectAccountError(
            w.accounts.apiKeys.create(a.token, { name: 'k', scopes: scopes as string[] }),
            'invalid_scope',
          );
          if (named) expect(error.message).to.include(JSON.stringify(named));
        }
        // A key pasted as a scope is not repeated in the error.
        const { key } = await w.accounts.apiKeys.create(a.token, READ);
        const pasted = await expectAccountError(
          w.accounts.apiKeys.create(a.token, { name: 'k', scopes: [key] }),
          'invalid_scope',
        );
        expect(pasted.message).not.to.include(key.slice(10, 42));
        await w.accounts.apiKeys.revokeAll(a.token);
        // Gatehouse's own permissions are refused even to an administrator who holds them.
        const root = await w.administrator('root');
        await expectAccountError(
          w.accounts.apiKeys.create(root.sessionToken!, { name: 'k', scopes: ['gatehouse.api_keys.manage'] }),
          'invalid_scope',
        );
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        expect(await w.events('api_key_created')).to.have.length(1);
      });

      it('judges the scopes against the roles held at creation', async () => {
        const w = world();
        const a = await alice(w);
        await w.accounts.apiKeys.create(a.token, READ);
        await w.accounts.access.revokeRole('alice', 'reporter');
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, name: 'two' }), 'invalid_scope');
        expect(await w.accounts.apiKeys.availableScopes(a.token)).to.deep.equal([]);
      });

      it('offers the permissions held, without Gatehouse ones', async () => {
        const w = world();
        await w.role('reporter', REPORTER_PERMISSIONS);
        const root = await w.administrator('root', ['reporter']);
        expect(await w.accounts.apiKeys.availableScopes(root.sessionToken!)).to.deep.equal(REPORTER_PERMISSIONS);
      });

      it('bounds the name: 1 to 64 characters after trimming, no controls, unique per owner', async () => {
        const w = world();
        const a = await alice(w);
        await w.role('reporter2', REPORTER_PERMISSIONS);
        const b = await w.person('bob', ['reporter2']);
        for (const name of ['', '   ', 'x'.repeat(65), 'a\nb', 'tab\there', 'nul\u0000', 42]) {
          await expectAccountError(
            w.accounts.apiKeys.create(a.token, { ...READ, name: name as string }),
            'account_error',
          );
        }
        const long = await w.accounts.apiKeys.create(a.token, { ...READ, name: ` ${'é'.repeat(64)} ` });
        expect(long.apiKey.name).to.equal('é'.repeat(64));
        await w.accounts.apiKeys.create(a.token, READ);
        await expectAccountError(w.accounts.apiKeys.create(a.token, READ), 'api_key_name_taken');
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, name: ' ci ' }), 'api_key_name_taken');
        // Another owner may use the same name.
        await w.accounts.apiKeys.create(b.token, READ);
        expect(await w.accounts.apiKeys.list(a.token)).to.have.length(2);
        expect(await w.events('api_key_created')).to.have.length(3);
      });

      it('bounds the lifetime: whole days from 1 to apiKeyMaxLifetimeDays, default apiKeyDefaultLifetimeDays', async () => {
        const w = world();
        const a = await alice(w);
        for (const days of [0, -1, 367, 1.5, '30', Number.NaN, Number.POSITIVE_INFINITY]) {
          await expectAccountError(
            w.accounts.apiKeys.create(a.token, { ...READ, expiresInDays: days as number }),
            'invalid_api_key_expiry',
          );
        }
        const now = w.clock.now().getTime();
        const longest = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'max', expiresInDays: 366 });
        expect(longest.apiKey.expiresAt.getTime()).to.equal(now + 366 * DAY);
        const shortest = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'min', expiresInDays: 1 });
        expect(shortest.apiKey.expiresAt.getTime()).to.equal(now + DAY);
        expect(await w.accounts.apiKeys.list(a.token)).to.have.length(2);
      });

      it('follows the configured lifetimes', async () => {
        options = { apiKeyMaxLifetimeDays: 10, apiKeyDefaultLifetimeDays: 2 };
        const w = world();
        const a = await alice(w);
        await expectAccountError(
          w.accounts.apiKeys.create(a.token, { ...READ, expiresInDays: 11 }),
          'invalid_api_key_expiry',
        );
        const created = await w.accounts.apiKeys.create(a.token, READ);
        expect(created.apiKey.expiresAt.getTime() - created.apiKey.createdAt.getTime()).to.equal(2 * DAY);
      });

      it('holds at most 50 live keys; expired ones do not count and free their names', async () => {
        const w = world();
        const a = await alice(w);
        await w.accounts.apiKeys.create(a.token, { ...READ, name: 'old', expiresInDays: 1 });
        for (let i = 0; i < 49; i++) await w.accounts.apiKeys.create(a.token, { ...READ, name: `k${i}` });
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, name: 'k50' }), 'api_key_limit_reached');
        expect(await w.accounts.apiKeys.list(a.token)).to.have.length(50);
        expect(await w.events('api_key_created')).to.have.length(50);
        w.clock.advance(DAY);
        await w.accounts.sessions.reauthenticate(a.token, STRONG_PASSWORD);
        // 'old' expired: it no longer counts, and its name is free again.
        const again = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'old' });
        const listed = await w.accounts.apiKeys.list(a.token);
        expect(listed).to.have.length(50);
        expect(listed[0].id).to.equal(again.apiKey.id);
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, name: 'k51' }), 'api_key_limit_reached');
      });

      it('counts against apiKeyMaxPerUser', async () => {
        options = { apiKeyMaxPerUser: 2 };
        const w = world();
        const a = await alice(w);
        await w.accounts.apiKeys.create(a.token, { ...READ, name: 'one' });
        await w.accounts.apiKeys.create(a.token, { ...READ, name: 'two' });
        await expectAccountError(w.accounts.apiKeys.create(a.token, READ), 'api_key_limit_reached');
        await w.accounts.drain();
        expect(w.sender.of('apiKeyCreated')).to.have.length(2);
      });

      it('leaves no key, no event and no mail when refused', async () => {
        const w = world();
        const a = await alice(w);
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, scopes: ['nope'] }), 'invalid_scope');
        await expectAccountError(
          w.accounts.apiKeys.create(a.token, { ...READ, expiresInDays: 0 }),
          'invalid_api_key_expiry',
        );
        await expectAccountError(w.accounts.apiKeys.create(a.token, { ...READ, name: '' }), 'account_error');
        await w.accounts.drain();
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        expect(await w.events('api_key_created')).to.deep.equal([]);
        expect(w.sender.of('apiKeyCreated')).to.deep.equal([]);
      });

      it('mails the owner and audits the creation, never with the key or its hash', async () => {
        const w = world();
        const a = await alice(w);
        const { key, apiKey } = await w.accounts.apiKeys.create(a.token, { ...READ, expiresInDays: 7 });
        await w.accounts.drain();
        expect(w.sender.of('apiKeyCreated').map((m) => m.email)).to.deep.equal([a.email]);
        const [event] = await w.events('api_key_created');
        expect(event).to.deep.include({ actorType: 'user', actorId: a.id, subjectId: a.id, outcome: 'success' });
        expect(event.details).to.deep.equal({
          keyId: apiKey.id,
          scopes: 'reports.read',
          expiresAt: apiKey.expiresAt.toISOString(),
        });
        // The name is the owner's words: the listing has it, the trail does not.
        const written = await w.everythingWritten();
        expect(written).to.include(apiKey.id);
        expect(written).not.to.include(key);
        expect(written).not.to.include(key.slice(10, 42));
        expect(written).not.to.include(hashOf(key));
      });
    });

    describe('revocation', () => {
      it('revokes one of the owner’s keys, audited, unmailed; another’s or an unknown id alike not found', async () => {
        const w = world();
        const a = await alice(w);
        await w.role('reporter2', REPORTER_PERMISSIONS);
        const b = await w.person('bob', ['reporter2']);
        const one = await w.accounts.apiKeys.create(a.token, READ);
        const two = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'two' });
        const bobs = await w.accounts.apiKeys.create(b.token, READ);
        for (const id of [bobs.apiKey.id, randomUUID(), 'not-a-uuid', "' OR 1=1 --"]) {
          await expectAccountError(w.accounts.apiKeys.revoke(a.token, id), 'api_key_not_found');
        }
        await w.accounts.apiKeys.revoke(a.token, one.apiKey.id);
        await expectAccountError(w.accounts.apiKeys.revoke(a.token, one.apiKey.id), 'api_key_not_found');
        expect((await w.accounts.apiKeys.list(a.token)).map((k) => k.id)).to.deep.equal([two.apiKey.id]);
        expect(await w.store.apiKeys.check(hashOf(one.key))).to.equal(null);
        expect(await w.store.apiKeys.check(hashOf(bobs.key))).not.to.equal(null);
        const events = await w.events('api_key_revoked');
        expect(events.map((e) => [e.actorType, e.actorId, e.subjectId, e.details])).to.deep.equal([
          ['user', a.id, a.id, { keyId: one.apiKey.id, reason: 'owner' }],
        ]);
        await w.accounts.drain();
        expect(w.sender.of('apiKeyRevoked')).to.deep.equal([]);
      });

      it('revokes all of the owner’s keys, one event each', async () => {
        const w = world();
        const a = await alice(w);
        const keys = [
          await w.accounts.apiKeys.create(a.token, READ),
          await w.accounts.apiKeys.create(a.token, { ...READ, name: 'two' }),
        ];
        expect(await w.accounts.apiKeys.revokeAll(a.token)).to.equal(2);
        expect(await w.accounts.apiKeys.revokeAll(a.token)).to.equal(0);
        expect(await w.accounts.apiKeys.list(a.token)).to.deep.equal([]);
        for (const { key } of keys) expect(await w.store.apiKeys.check(hashOf(key))).to.equal(null);
        const events = await w.events('api_key_revoked');
        expect(events.map((e) => e.details?.reason)).to.deep.equal(['owner_all', 'owner_all']);
        expect(events.map((e) => e.details?.keyId).sort()).to.deep.equal(keys.map((k) => k.apiKey.id).sort());
      });

      it('revokes by possession alike for live, unknown and malformed keys; the owner is mailed when one went', async () => {
        const w = world();
        const a = await alice(w);
        const { key, apiKey } = await w.accounts.apiKeys.create(a.token, READ);
        const flipped = key.slice(0, 12) + (key[12] === 'A' ? 'B' : 'A') + key.slice(13);
        for (const other of [
          mintApiKey('gatehouse'),
          mintApiKey('other'),
          flipped,
          '',
          'x',
          key.toUpperCase(),
          'x'.repeat(200),
        ]) {
          expect(await w.accounts.apiKeys.revokeByPossession(other)).to.equal(undefined);
        }
        expect(await w.accounts.apiKeys.list(a.token)).to.have.length(1);
        expect(await w.events('api_key_revoked')).to.deep.equal([]);
        expect(await w.accounts.apiKeys.revokeByPossession(key)).to.equal(undefined);
        expect(await w.accounts.apiKeys.revokeByPossession(key)).to.equal(undefined);
        expect(await w.accounts.apiKeys.list(a.token)).to.deep.equal([]);
        const [event] = await w.events('api_key_revoked');
        expect(event).to.deep.include({ actorType: 'anonymous', actorId: null, subjectId: a.id });
        expect(event.details).to.deep.equal({ keyId: apiKey.id, reason: 'possession' });
        await w.accounts.drain();
        expect(w.sender.of('apiKeyRevoked').map((m) => m.email)).to.deep.equal([a.email]);
        const written = await w.everythingWritten();
        expect(written).not.to.include(key);
        expect(written).not.to.include(hashOf(key));
      });

      it('lets an administrator list and revoke any account’s keys, audited, the owner mailed once per action', async () => {
        const w = world();
        const a = await alice(w);
        const root = await w.administrator('root');
        const one = await w.accounts.apiKeys.create(a.token, READ);
        const two = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'two' });
        const three = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'three' });
        const listed = await w.accounts.apiKeys.admin.list(root, a.id);
        expect(listed.map((k) => k.id)).to.deep.equal([three.apiKey.id, two.apiKey.id, one.apiKey.id]);
        const [read] = await w.events('admin.api_keys_listed');
        expect(read).to.deep.include({ actorType: 'admin', actorId: root.user.id, subjectId: a.id });
        await w.accounts.apiKeys.admin.revoke(root, a.id, one.apiKey.id);
        await expectAccountError(w.accounts.apiKeys.admin.revoke(root, a.id, one.apiKey.id), 'api_key_not_found');
        await expectAccountError(w.accounts.apiKeys.admin.revoke(root, a.id, 'nope'), 'api_key_not_found');
        await expectAccountError(w.accounts.apiKeys.admin.list(root, randomUUID()), 'user_not_found');
        await expectAccountError(w.accounts.apiKeys.admin.revokeAll(root, randomUUID()), 'user_not_found');
        expect(await w.accounts.apiKeys.admin.revokeAll(root, a.id)).to.equal(2);
        expect(await w.accounts.apiKeys.admin.revokeAll(root, a.id)).to.equal(0);
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        const events = await w.events('api_key_revoked');
        expect(events.map((e) => [e.actorType, e.actorId, e.details?.reason])).to.deep.equal([
          ['admin', root.user.id, 'administrator'],
          ['admin', root.user.id, 'administrator'],
          ['admin', root.user.id, 'administrator'],
        ]);
        await w.accounts.drain();
        // One notice for the single revocation, one for the revocation of the two others.
        expect(w.sender.of('apiKeyRevoked').map((m) => m.email)).to.deep.equal([a.email, a.email]);
      });

      it('refuses the administrators’ part without gatehouse.api_keys.manage, and changes without a recent session', async () => {
        const w = world();
        const a = await alice(w);
        const { apiKey } = await w.accounts.apiKeys.create(a.token, READ);
        const bob = await w.person('bob');
        const notAdmin = { kind: 'admin' as const, user: { id: bob.id }, sessionToken: bob.token };
        await expectAccountError(w.accounts.apiKeys.admin.list(notAdmin, a.id), 'permission_denied');
        await expectAccountError(w.accounts.apiKeys.admin.revoke(notAdmin, a.id, apiKey.id), 'permission_denied');
        await expectAccountError(w.accounts.apiKeys.admin.revokeAll(notAdmin, a.id), 'permission_denied');
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(notAdmin, { username: 'bot' }),
          'permission_denied',
        );
        await expectAccountError(w.accounts.apiKeys.admin.listServiceAccounts(notAdmin), 'permission_denied');
        const root = await w.administrator('root');
        w.clock.advance(11 * MINUTE);
        await expectAccountError(w.accounts.apiKeys.admin.revoke(root, a.id, apiKey.id), 'reauthentication_required');
        await expectAccountError(w.accounts.apiKeys.admin.revokeAll(root, a.id), 'reauthentication_required');
        expect(await w.accounts.apiKeys.admin.list(root, a.id)).to.have.length(1);
        expect(await w.events('api_key_revoked')).to.deep.equal([]);
      });

      it('revokes every key when the account is disabled, in the disabling transaction', async () => {
        const w = world();
        const a = await alice(w);
        const root = await w.administrator('root');
        const { key, apiKey } = await w.accounts.apiKeys.create(a.token, READ);
        // A refused disabling (the last administrator) keeps the administrator's keys.
        await w.role('reporter2', REPORTER_PERMISSIONS);
        await w.accounts.access.grantRole('root', 'reporter2');
        const rootKey = await w.accounts.apiKeys.create(root.sessionToken!, READ);
        await expectAccountError(w.accounts.admin.disableUser(root, root.user.id), 'last_administrator');
        expect(await w.store.apiKeys.check(hashOf(rootKey.key))).not.to.equal(null);
        await w.accounts.admin.disableUser(root, a.id);
        expect(await w.store.apiKeys.check(hashOf(key))).to.equal(null);
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        const events = await w.events('api_key_revoked');
        expect(events.map((e) => [e.actorType, e.actorId, e.subjectId, e.details])).to.deep.equal([
          ['admin', root.user.id, a.id, { keyId: apiKey.id, reason: 'account_disabled' }],
        ]);
        // The operator's path (the CLI's `users disable`) is the same method.
        const b = await w.person('bob', ['reporter2']);
        const bobs = await w.accounts.apiKeys.create(b.token, READ);
        await w.accounts.admin.disableUser(OPERATOR, b.id);
        expect(await w.store.apiKeys.check(hashOf(bobs.key))).to.equal(null);
        expect((await w.events('api_key_revoked')).at(-1)?.actorType).to.equal('operator');
      });

      it('keeps the keys through a password reset or change unless asked to revoke them', async () => {
        const w = world();
        const a = await alice(w);
        const first = await w.accounts.apiKeys.create(a.token, READ);
        const resetTo = async (password: string, revoke?: boolean) => {
          await w.accounts.requestPasswordReset(a.email);
          await w.accounts.drain();
          const link = w.sender.lastToken('sendPasswordReset', a.email);
          await w.accounts.confirmPasswordReset(
            link,
            password,
            revoke === undefined ? undefined : { revokeApiKeys: revoke },
          );
        };
        await resetTo(OTHER_PASSWORD);
        await resetTo(STRONG_PASSWORD, false);
        expect(await w.store.apiKeys.check(hashOf(first.key))).not.to.equal(null);
        await resetTo(OTHER_PASSWORD, true);
        expect(await w.store.apiKeys.check(hashOf(first.key))).to.equal(null);
        const [reset] = await w.events('api_key_revoked');
        expect(reset).to.deep.include({ actorType: 'anonymous', subjectId: a.id });
        expect(reset.details).to.deep.equal({ keyId: first.apiKey.id, reason: 'password_reset' });

        let token = await w.accounts.login('alice', OTHER_PASSWORD);
        const second = await w.accounts.apiKeys.create(token, READ);
        await w.accounts.changePassword(token, OTHER_PASSWORD, STRONG_PASSWORD);
        expect(await w.store.apiKeys.check(hashOf(second.key))).not.to.equal(null);
        token = await w.accounts.login('alice', STRONG_PASSWORD);
        await w.accounts.changePassword(token, STRONG_PASSWORD, OTHER_PASSWORD, { revokeApiKeys: true });
        expect(await w.store.apiKeys.check(hashOf(second.key))).to.equal(null);
        const changed = (await w.events('api_key_revoked')).at(-1);
        expect(changed).to.deep.include({ actorType: 'user', actorId: a.id, subjectId: a.id });
        expect(changed?.details).to.deep.equal({ keyId: second.apiKey.id, reason: 'password_change' });
      });
    });

    describe('service accounts', () => {
      /** root (gatehouse-admin and `reporter`), and a service account `bot` holding `bot-role` (reports.*). */
      async function bot(w: KeyWorld) {
        await w.role('reporter', REPORTER_PERMISSIONS);
        await w.role('bot-role', REPORTER_PERMISSIONS);
        const root = await w.administrator('root', ['reporter']);
        const account = await w.accounts.apiKeys.admin.createServiceAccount(root, {
          username: 'bot',
          roles: ['bot-role'],
        });
        return { root, account };
      }

      it('is a verified user without password or mailbox that cannot sign in', async () => {
        const w = world();
        const { root, account } = await bot(w);
        expect(account).to.deep.include({
          username: 'bot',
          roles: ['bot-role'],
          disabled: false,
          createdBy: { id: root.user.id, username: 'root' },
        });
        const user = await w.store.users.findById(account.id);
        expect(user?.verified).to.equal(true);
        expect(user?.email).to.equal(`${account.id}@service-accounts.invalid`);
        expect(await w.store.passwords.hashOf(account.id)).to.equal(null);
        await expectAccountError(w.accounts.login('bot', STRONG_PASSWORD), 'invalid_credentials');
        await expectAccountError(w.accounts.login('bot', ''), 'invalid_credentials');
        // Nothing is ever mailed to its address: a reset request, a registration or an email change naming it.
        await w.accounts.requestPasswordReset(user!.email);
        await w.accounts.register({ username: 'mallory', email: user!.email, password: STRONG_PASSWORD });
        const person = await w.person('erin');
        await w.accounts.emailChanges.request(person.token, user!.email);
        await w.accounts.drain();
        expect(w.sender.sent.filter((m) => m.email === user!.email)).to.deep.equal([]);
        expect(await w.accounts.apiKeys.admin.listServiceAccounts(root)).to.deep.equal([account]);
        const [created] = await w.events('service_account_created');
        expect(created).to.deep.include({ actorType: 'admin', actorId: root.user.id, subjectId: account.id });
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(root, { username: 'BOT' }),
          'invalid_username',
        );
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(root, { username: 'no spaces' }),
          'invalid_username',
        );
        // The clean-up of unconfirmed registrations leaves it alone.
        w.clock.advance(30 * DAY);
        await w.accounts.removeExpired();
        expect(await w.store.users.findById(account.id)).not.to.equal(null);
      });

      it('has keys made by administrators only, unmailed, under the owner’s rules', async () => {
        const w = world();
        const { root, account } = await bot(w);
        const created = await w.accounts.apiKeys.admin.createKey(root, account.id, {
          name: 'pipeline',
          scopes: ['reports.read'],
          expiresInDays: 90,
        });
        expect(isWellFormedApiKey(created.key, 'gatehouse')).to.equal(true);
        expect(created.apiKey.createdBy).to.deep.equal({ id: root.user.id, username: 'root' });
        expect((await w.accounts.apiKeys.admin.list(root, account.id)).map((k) => k.id)).to.deep.equal([
          created.apiKey.id,
        ]);
        const [event] = await w.events('api_key_created');
        expect(event).to.deep.include({ actorType: 'admin', actorId: root.user.id, subjectId: account.id });
        await expectAccountError(
          w.accounts.apiKeys.admin.createKey(root, account.id, { name: 'pipeline', scopes: ['reports.read'] }),
          'api_key_name_taken',
        );
        await expectAccountError(
          w.accounts.apiKeys.admin.createKey(root, account.id, { name: 'x', scopes: ['gatehouse.users.read'] }),
          'invalid_scope',
        );
        await w.accounts.apiKeys.admin.revokeAll(root, account.id);
        await w.accounts.drain();
        expect(w.sender.sent.filter((m) => m.email.endsWith('.invalid'))).to.deep.equal([]);
        await expectAccountError(w.accounts.apiKeys.admin.createKey(root, randomUUID(), READ), 'user_not_found');
      });

      it('refuses a person (not_a_service_account) and a disabled service account', async () => {
        const w = world();
        const { root, account } = await bot(w);
        const a = await w.person('alice', ['reporter']);
        await expectAccountError(w.accounts.apiKeys.admin.createKey(root, a.id, READ), 'not_a_service_account');
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        await w.accounts.admin.disableUser(root, account.id);
        await expectAccountError(w.accounts.apiKeys.admin.createKey(root, account.id, READ), 'account_disabled');
      });

      it('gives a key only scopes the administrator holds too; the operator holds everything', async () => {
        const w = world();
        const { root, account } = await bot(w);
        await w.role('billing', ['billing.read']);
        await w.accounts.access.grantRole('bot', 'billing');
        const error = await expectAccountError(
          w.accounts.apiKeys.admin.createKey(root, account.id, { name: 'b', scopes: ['billing.read'] }),
          'invalid_scope',
        );
        expect(error.message).to.include('"billing.read"');
        expect(await w.store.apiKeys.list(account.id)).to.deep.equal([]);
        const byOperator = await w.accounts.apiKeys.admin.createKey(OPERATOR, account.id, {
          name: 'b',
          scopes: ['billing.read'],
        });
        expect(byOperator.apiKey.createdBy).to.equal(null);
        // The service account itself must hold the scope too.
        await w.role('extra', ['extra.read']);
        await w.accounts.access.grantRole('root', 'extra');
        await expectAccountError(
          w.accounts.apiKeys.admin.createKey(root, account.id, { name: 'e', scopes: ['extra.read'] }),
          'invalid_scope',
        );
      });

      it('grants roles under the administrators’ rules', async () => {
        const w = world();
        await w.role('reporter', REPORTER_PERMISSIONS);
        await w.role('billing', ['billing.read']);
        const root = await w.administrator('root', ['reporter']);
        // A role carrying a permission the administrator does not hold: refused, nothing created.
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(root, { username: 'bot', roles: ['reporter', 'billing'] }),
          'permission_denied',
        );
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(root, { username: 'bot', roles: ['no-such-role'] }),
          'unknown_role',
        );
        for (const roles of ['reporter', [''], [42]]) {
          await expectAccountError(
            w.accounts.apiKeys.admin.createServiceAccount(root, { username: 'bot', roles: roles as string[] }),
            'invalid_role',
          );
        }
        expect(await w.store.users.findByUsernameKey('bot')).to.equal(null);
        expect(await w.accounts.apiKeys.admin.listServiceAccounts(root)).to.deep.equal([]);
        // An administrator with gatehouse.api_keys.manage only makes service accounts, without roles.
        await w.role('key-admin', ['gatehouse.api_keys.manage']);
        await w.createVerifiedUser('keeper');
        await w.accounts.access.grantRole('keeper', 'key-admin');
        const keeper = {
          kind: 'admin' as const,
          user: { id: await w.accounts.admin.userIdOf('keeper') },
          sessionToken: await w.accounts.login('keeper', STRONG_PASSWORD),
        };
        await expectAccountError(
          w.accounts.apiKeys.admin.createServiceAccount(keeper, { username: 'bot', roles: ['billing'] }),
          'permission_denied',
        );
        const grants = (await w.events('admin.role_granted')).length;
        const plain = await w.accounts.apiKeys.admin.createServiceAccount(keeper, { username: 'bot' });
        expect(plain.roles).to.deep.equal([]);
        expect(await w.events('admin.role_granted')).to.have.length(grants);
        // Roles given by an administrator allowed to: each grant audited as the administrator's.
        await w.role('reader', ['reports.read']);
        const reader = await w.accounts.apiKeys.admin.createServiceAccount(root, {
          username: 'bot2',
          roles: ['reader', 'reader'],
        });
        expect(reader.roles).to.deep.equal(['reader']);
        const granted = (await w.events('admin.role_granted')).at(-1);
        expect(granted).to.deep.include({ actorType: 'admin', actorId: root.user.id, subjectId: reader.id });
        expect(granted?.details).to.deep.equal({ role: 'reader' });
      });
    });

    describe('races', () => {
      it('lets concurrent creations past the limit and the name only as far as the rules allow', async () => {
        options = { apiKeyMaxPerUser: 3 };
        const w = world();
        const a = await alice(w);
        const create = (name: string) =>
          w.accounts.apiKeys.create(a.token, { ...READ, name }).then(
            () => 'created',
            (error: { code?: string }) => error.code,
          );
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => create(`k${i}`)));
        expect(outcomes.filter((o) => o === 'created')).to.have.length(3);
        expect(outcomes.filter((o) => o === 'api_key_limit_reached')).to.have.length(5);
        await w.accounts.apiKeys.revokeAll(a.token);
        const same = await Promise.all(Array.from({ length: 4 }, () => create('same')));
        expect(same.sort()).to.deep.equal([
          'api_key_name_taken',
          'api_key_name_taken',
          'api_key_name_taken',
          'created',
        ]);
        expect(await w.store.apiKeys.list(a.id)).to.have.length(1);
        expect(await w.events('api_key_created')).to.have.length(4);
      });

      it('leaves no usable key of an account disabled while a key was being created', async () => {
        const w = world();
        const a = await alice(w);
        const root = await w.administrator('root');
        const [created] = await Promise.allSettled([
          w.accounts.apiKeys.create(a.token, READ),
          w.accounts.admin.disableUser(root, a.id),
        ]);
        expect(await w.store.apiKeys.list(a.id)).to.deep.equal([]);
        if (created.status === 'fulfilled') {
          expect(await w.store.apiKeys.check(hashOf(created.value.key))).to.equal(null);
        }
      });
    });

    describe('clean-up', () => {
      it('lists expired keys as expired until the clean-up removes them', async () => {
        const w = world();
        const a = await alice(w);
        const short = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'short', expiresInDays: 1 });
        const long = await w.accounts.apiKeys.create(a.token, { ...READ, name: 'long', expiresInDays: 3 });
        w.clock.advance(DAY);
        const listed = await w.accounts.apiKeys.list(a.token);
        expect(listed.map((k) => [k.id, k.expired])).to.deep.equal([
          [long.apiKey.id, false],
          [short.apiKey.id, true],
        ]);
        await w.accounts.removeExpired();
        expect((await w.accounts.apiKeys.list(a.token)).map((k) => k.id)).to.deep.equal([long.apiKey.id]);
        expect(await w.store.apiKeys.check(hashOf(short.key))).to.equal(null);
      });
    });
  });
}
