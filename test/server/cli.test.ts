import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { enqueue } from '../support/store-writes';

const SECRET = 'cli-test-secret-key-0123456789-abcdefghij';

describe('admin CLI (gatehouse <command>)', () => {
  let dir: string;
  let env: Record<string, string>;
  let out: string[];
  let err: string[];
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      env,
      (line) => out.push(line),
      (line) => err.push(line),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
    env = { GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET };
    out = [];
    err = [];
    // A verified user, made through the core on the same database file the CLI opens.
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const sender = new RecordingEmailSender();
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    await accounts.register({
      username: 'alice',
      email: 'alice@example.com',
      password: 'violet staircase 42 umbrella',
    });
    await accounts.drain();
    await accounts.verifyEmail(sender.lastToken('sendVerification'));
    await accounts.drain();
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates roles and permissions, grants them, and lists them on the same database', async () => {
    expect(await cli('create-role', 'editor')).to.equal(0);
    expect(await cli('create-role', 'editor')).to.equal(0);
    expect(await cli('create-permission', 'posts.write')).to.equal(0);
    expect(await cli('create-permission', 'posts.publish')).to.equal(0);
    expect(await cli('grant-permission', 'editor', 'posts.write')).to.equal(0);
    expect(await cli('grant-permission', 'editor', 'posts.publish')).to.equal(0);
    expect(await cli('grant-role', 'alice', 'editor')).to.equal(0);
    expect(out).to.deep.equal([
      'created role editor',
      'role editor already exists',
      'created permission posts.write',
      'created permission posts.publish',
      'granted posts.write to role editor',
      'granted posts.publish to role editor',
      'granted role editor to alice',
    ]);
    out.length = 0;
    await cli('list-roles');
    await cli('list-permissions');
    await cli('list-user-roles', 'alice');
    expect(out).to.deep.equal(['editor\tposts.publish,posts.write', 'posts.publish', 'posts.write', 'editor']);

    out.length = 0;
    expect(await cli('revoke-permission', 'editor', 'posts.publish')).to.equal(0);
    expect(await cli('revoke-role', 'alice', 'editor')).to.equal(0);
    await cli('list-user-roles', 'alice');
    expect(out.slice(-1)).to.deep.equal(['revoked role editor from alice']);
  });

  it('refuses unknown names with the core’s codes and exit code 1', async () => {
    expect(await cli('grant-role', 'alice', 'ghost')).to.equal(1);
    expect(await cli('grant-role', 'nobody', 'ghost')).to.equal(1);
    expect(await cli('create-role', 'bad name')).to.equal(1);
    expect(err).to.deep.equal([
      'gatehouse: unknown_role: Unknown role',
      'gatehouse: account_error: Unknown user',
      'gatehouse: invalid_role: Role name is invalid',
    ]);
  });

  it('answers usage errors with exit code 2 and the command list', async () => {
    expect(await cli()).to.equal(2);
    expect(await cli('frobnicate')).to.equal(2);
    expect(await cli('grant-role', 'alice')).to.equal(2);
    expect(err.join('\n')).to.include('grant-role takes <username> <role>');
    expect(await cli('help')).to.equal(0);
    expect(out.join('\n')).to.include('create-permission <permission>');
  });

  it('needs no secret key, and generates none', async () => {
    delete env.GATEHOUSE_SECRET_KEY;
    expect(await cli('list-roles')).to.equal(0);
    expect(err).to.deep.equal([]);
  });

  it('cleanup removes expired sessions and tokens, and keeps live ones', async () => {
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const alice = (await store.users.findByUsernameKey('alice'))!;
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    const session = (tokenHash: string, createdAt: Date) => ({
      tokenHash,
      id: `id-of-${tokenHash}`,
      userId: alice.id,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + 30 * 86_400_000),
      lastSeenAt: createdAt,
      authenticatedAt: createdAt,
      ip: null,
      userAgent: null,
      methods: ['pwd'] as const,
      credentialEpoch: 0,
    });
    await store.transaction((tx) => tx.sessions.create(session('expired', longAgo)));
    await store.transaction((tx) => tx.sessions.create(session('live', new Date())));
    await store.transaction((tx) =>
      tx.tokens.replace(
        { tokenHash: 'old-reset', userId: alice.id, purpose: 'reset_password', expiresAt: longAgo },
        { kind: 'passwordReset', at: longAgo },
      ),
    );
    // An email sent two days ago: kept for the default 7 days, gone with GATEHOUSE_OUTBOX_RETENTION=1d.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    const id = randomUUID();
    await enqueue(store, alice.id, {
      id,
      kind: 'passwordChanged',
      sealedToken: null,
      createdAt: twoDaysAgo,
      giveUpAt: new Date(),
    });
    await store.outbox.markSent(id, twoDaysAgo);
    await store.close();

    expect(await cli('cleanup')).to.equal(0);
    expect(await cli('cleanup')).to.equal(0);
    env.GATEHOUSE_OUTBOX_RETENTION = '1d';
    expect(await cli('cleanup')).to.equal(0);
    expect(out).to.deep.equal([
      'removed 2 expired sessions, tokens, registrations, old sent or failed email and old audit events',
      'removed 0 expired sessions, tokens, registrations, old sent or failed email and old audit events',
      'removed 1 expired sessions, tokens, registrations, old sent or failed email and old audit events',
    ]);
    const after = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    try {
      expect(await after.sessions.findWithUser('live')).to.not.equal(null);
      expect(await after.sessions.findWithUser('expired')).to.equal(null);
    } finally {
      await after.close();
    }
  });

  it('outbox list shows queued email newest first, addresses masked, never a token', async () => {
    expect(await cli('outbox', 'list')).to.equal(0);
    expect(out[0]).to.match(/^ID +STATUS +KIND +TRIES +NEXT \/ SENT +TO +LAST ERROR$/);
    // (Both were queued within a millisecond or so: their order is not the point here.)
    const rows = out.slice(1).map((line) => line.split(/ {2,}/));
    expect(rows.map((row) => [row[1], row[2], row[3], row[5]]).sort()).to.deep.equal([
      ['sent', 'emailVerified', '1', 'a***@e***.com'],
      ['sent', 'verification', '1', 'a***@e***.com'],
    ]);
    expect(out.join('\n')).to.not.include('alice@example.com').and.not.include('v1.');
    out.length = 0;
    expect(await cli('outbox', 'list', '--status', 'failed')).to.equal(0);
    expect(out.slice(1)).to.deep.equal(['no failed messages']);
    expect(await cli('outbox', 'list', '--status', 'lost')).to.equal(2);
    expect(await cli('outbox', 'frobnicate')).to.equal(2);
    expect(err[0]).to.equal('gatehouse: outbox list: unexpected "--status lost"');
  });

  it('outbox retry brings back a failed notice, not a failed link, and --failed brings back every failed notice', async () => {
    const store = await SqliteUserStore.open({ filename: join(dir, 'accounts.db') });
    const alice = (await store.users.findByUsernameKey('alice'))!;
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    const failed = async (kind: 'passwordChanged' | 'passwordReset' | 'accountDeleted') => {
      const id = randomUUID();
      const sealedToken = kind === 'passwordReset' ? 'v1.sealed' : null;
      await enqueue(store, alice.id, { id, kind, sealedToken, createdAt: now, giveUpAt: later });
      const [claim] = await store.outbox.claimDue(now, later, 1);
      await store.outbox.markFailed(claim.id, claim.claimId, 'EmailDeliveryError:ESOCKET', now);
      return id;
    };
    const notice = await failed('passwordChanged');
    const link = await failed('passwordReset');
    await failed('accountDeleted');
    await store.close();

    expect(await cli('outbox', 'retry', notice)).to.equal(0);
    expect(await cli('outbox', 'retry', link)).to.equal(1);
    expect(err[0]).to.match(/nothing to retry for .*its token was erased; the user asks for a new link/);
    expect(await cli('outbox', 'retry', '--failed')).to.equal(0);
    expect(out[0]).to.equal(`message ${notice} is due now; a running worker sends it within its poll interval`);
    expect(out[1]).to.equal('1 failed message queued again');
    out.length = 0;
    await cli('outbox', 'list', '--status', 'pending');
    expect(
      out
        .slice(1)
        .map((line) => line.split(/ {2,}/)[2])
        .sort(),
    ).to.deep.equal(['accountDeleted', 'passwordChanged']);
    expect(await cli('outbox', 'retry')).to.equal(2);
  });

  it('refuses arguments to migrate and cleanup, and names inherited properties as unknown commands', async () => {
    expect(await cli('cleanup', 'now')).to.equal(2);
    expect(await cli('toString')).to.equal(2);
    expect(err.filter((line) => line.startsWith('gatehouse:'))).to.deep.equal([
      'gatehouse: cleanup takes no arguments',
      'gatehouse: unknown command "toString"',
    ]);
    expect(err.join('\n')).to.include('cleanup ');
  });

  it('migrates an empty database and reports configuration errors in one line', async () => {
    env.GATEHOUSE_DATABASE_URL = `sqlite:${join(dir, 'fresh.db')}`;
    expect(await cli('migrate')).to.equal(0);
    expect(out).to.deep.equal(['database schema is up to date']);
    env.GATEHOUSE_DATABASE_URL = 'redis://localhost';
    expect(await cli('list-roles')).to.equal(2);
    expect(err).to.have.length(1);
    expect(err[0]).to.match(/^gatehouse: GATEHOUSE_DATABASE_URL has an unknown scheme "redis:"/);
  });
});
