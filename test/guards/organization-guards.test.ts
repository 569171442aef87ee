import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { accountGuards } from '../../src/guards/account-guards';
import { AccountHttpError } from '../../src/http/http-errors';
import type { UserStore } from '../../src/services/user-store';
import { controllersOnlyWhileRunning } from '../support/controller-metadata';
import { CHEAP_HASHING } from '../support/fixtures';
import {
  bearer,
  buildTestApp,
  DRIVERS,
  type Driver,
  type HostApp,
  TEST_SECRET,
  type TestApp,
  useServer,
} from '../support/test-app';
import { freshStoreEachTest, TEST_STORES, type TestStoreKind } from '../support/test-stores';
import {
  ControllerWideOrgController,
  MissingOrgParamController,
  OrgProjectsController,
  PROJECT_ROLES,
  TeamController,
  UnknownOrgPermissionController,
  UnknownOrgRoleController,
} from './fixtures/organization-controllers';

const ORGANIZATION_OPTIONS = {
  secretKey: TEST_SECRET,
  hashing: CHEAP_HASHING,
  organizations: { roles: PROJECT_ROLES },
};

/** The host mounts its organization routes with the template they are written for, and checks them at start. */
function mountOrganizations(app: HostApp) {
  Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS);
  useServer(app, {
    controllers: [OrgProjectsController],
    middlewares: [class None {}],
    defaultErrorHandler: false,
    ...accountGuards({ controllers: [OrgProjectsController] }),
  });
  useServer(app, {
    controllers: [TeamController],
    middlewares: [class None {}],
    defaultErrorHandler: false,
    ...accountGuards({ organizationParam: 'teamId', controllers: [TeamController] }),
  });
}

/** Makes an organization with these members (username → role), as the store keeps it; returns its id. */
async function organizationWith(store: UserStore, members: Record<string, string>): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  const ids: Record<string, string> = {};
  for (const username of Object.keys(members)) ids[username] = (await store.users.findByUsernameKey(username))!.id;
  await store.transaction(async (tx) => {
    await tx.organizations.create({
      id,
      name: `Org ${id.slice(0, 4)}`,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
    });
    for (const [username, role] of Object.entries(members)) {
      expect(
        await tx.organizations.addMember({
          organizationId: id,
          userId: ids[username],
          role,
          createdAt: now,
          updatedAt: now,
        }),
      ).to.equal('added');
    }
  });
  return id;
}

async function setRole(store: UserStore, organizationId: string, username: string, role: string | null) {
  const userId = (await store.users.findByUsernameKey(username))!.id;
  await store.transaction(async (tx) => {
    await tx.organizations.lock(organizationId);
    if (role === null) await tx.organizations.removeMember(organizationId, userId);
    else await tx.organizations.setRole(organizationId, userId, role, new Date());
  });
}

const NOT_FOUND = { detail: { detail: 'No organization of yours has this id', code: 'organization_not_found' } };
const DENIED = { detail: { detail: 'Your role in this organization does not allow this', code: 'permission_denied' } };
const GLOBAL_DENIED = { detail: { detail: 'Permission denied', code: 'permission_denied' } };

// Memory answers the session check with a promise; an SQLite file reads at once. PostgreSQL is the stores' suites'.
const GUARD_STORES = TEST_STORES.filter((kind) => kind.name !== 'PostgreSQL');

describe('organization guards', () => {
  controllersOnlyWhileRunning(
    OrgProjectsController,
    TeamController,
    UnknownOrgRoleController,
    UnknownOrgPermissionController,
    MissingOrgParamController,
    ControllerWideOrgController,
  );

  for (const driver of DRIVERS) for (const kind of GUARD_STORES) describeOrganizationGuards(driver, kind);

  describe('checked at start (accountGuards())', () => {
    beforeEach(() => buildTestApp());

    it('passes routes whose names are the template’s and whose paths have the parameter', () => {
      Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS);
      expect(() => accountGuards({ controllers: [OrgProjectsController] })).to.not.throw();
      expect(() => accountGuards({ controllers: [TeamController], organizationParam: 'teamId' })).to.not.throw();
      // With a resolver, the path is the host's business.
      expect(() =>
        accountGuards({ controllers: [MissingOrgParamController], organizationResolver: () => undefined }),
      ).to.not.throw();
    });

    it('refuses a role or permission outside the template, naming the controller and method', () => {
      Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS);
      expect(() => accountGuards({ controllers: [UnknownOrgRoleController] }))
        .to.throw(ConfigurationError, /UnknownOrgRoleController\.unknownRole/)
        .with.property('message')
        .that.includes('org:role:superuser');
      expect(() => accountGuards({ controllers: [UnknownOrgPermissionController] }))
        .to.throw(ConfigurationError, /UnknownOrgPermissionController\.unknownPermission/)
        .with.property('message')
        .that.includes('org:perm:projects.delete');
      // The default template has no projects.write.
      buildTestApp();
      expect(() => accountGuards({ controllers: [OrgProjectsController] })).to.throw(
        ConfigurationError,
        /OrgProjectsController\.create.*projects\.write/,
      );
    });

    it('refuses a route without the parameter, on the action or the whole controller', () => {
      Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS);
      expect(() => accountGuards({ controllers: [MissingOrgParamController] })).to.throw(
        ConfigurationError,
        /MissingOrgParamController\.noParam.*\/projects\/:id.*:orgId/,
      );
      expect(() => accountGuards({ controllers: [ControllerWideOrgController] })).to.throw(
        ConfigurationError,
        /ControllerWideOrgController\.one/,
      );
      expect(() => accountGuards({ controllers: [TeamController] })).to.throw(
        ConfigurationError,
        /TeamController\.board/,
      );
    });

    it('refuses any organization guard when organizations are off', () => {
      Container.set(ACCOUNT_OPTIONS, { ...ORGANIZATION_OPTIONS, organizations: false });
      expect(() => accountGuards({ controllers: [OrgProjectsController] })).to.throw(
        ConfigurationError,
        /OrgProjectsController\.list.*organizations are off/,
      );
    });

    it('checks every controller routing-controllers knows of by default', () => {
      Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS);
      expect(() => accountGuards()).to.throw(
        ConfigurationError,
        /TeamController|UnknownOrgRoleController|MissingOrgParamController/,
      );
    });

    it('refuses a parameter name that cannot be one', () => {
      expect(() => accountGuards({ organizationParam: 'org id', controllers: [] })).to.throw(ConfigurationError);
    });
  });
});

function describeOrganizationGuards(driver: Driver, kind: TestStoreKind): void {
  describe(`on a host controller (${driver}, ${kind.name})`, () => {
    let t: TestApp;
    let store: UserStore;
    let olivia: string; // owner of acme
    let adam: string; // admin of acme
    let mia: string; // member of acme, owner of globex
    let nina: string; // no organization
    let acme: string;
    let globex: string;

    freshStoreEachTest(kind, (opened) => {
      store = opened;
      return () => t.accounts.drain();
    });

    beforeEach(async () => {
      t = buildTestApp({ driver, mount: mountOrganizations, store });
      olivia = await t.loginNewUser('olivia');
      adam = await t.loginNewUser('adam');
      mia = await t.loginNewUser('mia');
      nina = await t.loginNewUser('nina');
      acme = await organizationWith(store, { olivia: 'owner', adam: 'admin', mia: 'member' });
      globex = await organizationWith(store, { mia: 'owner' });
    });

    const get = (path: string, token?: string) => {
      const call = t.http.get(path);
      return token === undefined ? call : call.set(bearer(token));
    };

    it('lets any member in, with the organization as the guard read it', async () => {
      const owner = await get(`/orgs/${acme}/projects`, olivia).expect(200);
      expect(owner.body.organization).to.deep.equal({
        id: acme,
        role: 'owner',
        permissions: [
          'gatehouse.members.invite',
          'gatehouse.members.manage',
          'gatehouse.members.read',
          'gatehouse.organization.delete',
          'gatehouse.organization.update',
          'projects.read',
          'projects.write',
        ],
      });
      const member = await get(`/orgs/${acme}/projects`, mia).expect(200);
      expect(member.body.organization).to.deep.equal({
        id: acme,
        role: 'member',
        permissions: ['gatehouse.members.read', 'projects.read'],
      });
      await get(`/orgs/${globex}/projects`, mia).expect(200);
    });

    it('answers 401 before anything about the organization, whatever the id', async () => {
      for (const id of [acme, randomUUID(), 'not-a-uuid', globex]) {
        const missing = await get(`/orgs/${id}/projects`).expect(401);
        expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
        expect(missing.headers['www-authenticate']).to.equal('Bearer');
        const rejected = await get(`/orgs/${id}/projects`, 'E'.repeat(43)).expect(401);
        expect(rejected.body.detail.code).to.equal('invalid_session_token');
        await t.http.post(`/orgs/${id}/projects`).send({ name: 'x' }).expect(401);
      }
    });

    it('gives one 404 for unknown, malformed and other organizations’ ids', async () => {
      const bodies = new Set<string>();
      const ids = [globex, randomUUID(), 'not-a-uuid', acme.toUpperCase(), `${acme}x`, 'x'.repeat(300), '%20'];
      for (const id of ids) {
        for (const path of [`/orgs/${id}/projects`, `/orgs/${id}/settings`, `/orgs/${id}/whoami`]) {
          const response = await get(path, adam);
          expect(response.status, `${path}`).to.equal(404);
          expect(response.body, path).to.deep.equal(NOT_FOUND);
          bodies.add(response.text);
        }
        const posted = await t.http.post(`/orgs/${id}/projects`).set(bearer(nina)).send({ name: 'x' });
        expect(posted.status).to.equal(404);
        bodies.add(posted.text);
      }
      expect([...bodies]).to.have.length(1);
    });

    it('answers a path segment that is not UTF-8 400 on both drivers, as every other route does', async () => {
      for (const path of ['/orgs/%FF/projects', '/orgs/%FF/whoami']) {
        const response = await get(path, adam).expect(400);
        expect(response.body.detail.code).to.equal('bad_request');
      }
    });

    it('reads a malformed id from nowhere: the session alone', async () => {
      t.calls.clear();
      await get(`/orgs/not-a-uuid/projects`, adam).expect(404);
      expect(t.calls.get('sessions.check')).to.equal(1);
      expect(t.calls.get('organizations.membership') ?? 0).to.equal(0);
    });

    it('answers a member without the permission 403, and lets holders of it in', async () => {
      const denied = await t.http.post(`/orgs/${acme}/projects`).set(bearer(mia)).send({ name: 'x' }).expect(403);
      expect(denied.body).to.deep.equal(DENIED);
      expect(denied.headers['www-authenticate']).to.equal(undefined);
      await t.http
        .post(`/orgs/${acme}/projects`)
        .set(bearer(adam))
        .send({ name: 'Rocket' })
        .expect(200, { organization: acme, by: 'adam', name: 'Rocket' });
      // The owner holds every permission of the template.
      await t.http.post(`/orgs/${acme}/projects`).set(bearer(olivia)).send({ name: 'Moon' }).expect(200);
      // Mia owns globex: the same permission there.
      await t.http.post(`/orgs/${globex}/projects`).set(bearer(mia)).send({ name: 'x' }).expect(200);
    });

    it('a role guard wants exactly that role', async () => {
      await get(`/orgs/${acme}/settings`, adam).expect(200, { role: 'admin' });
      expect((await get(`/orgs/${acme}/settings`, olivia).expect(403)).body).to.deep.equal(DENIED);
      expect((await get(`/orgs/${acme}/settings`, mia).expect(403)).body).to.deep.equal(DENIED);
    });

    it('applies a demotion or a removal at the very next request, here and in every organization', async () => {
      await t.http.post(`/orgs/${acme}/projects`).set(bearer(adam)).send({}).expect(200);
      await setRole(store, acme, 'adam', 'member');
      await t.http.post(`/orgs/${acme}/projects`).set(bearer(adam)).send({}).expect(403);
      await get(`/orgs/${acme}/projects`, adam).expect(200);
      await setRole(store, acme, 'adam', null);
      expect((await get(`/orgs/${acme}/projects`, adam).expect(404)).body).to.deep.equal(NOT_FOUND);
      await get(`/orgs/${acme}/whoami`, adam).expect(404);
      await setRole(store, acme, 'adam', null);
      // Back as an admin: in again at once.
      await store.transaction(async (tx) => {
        await tx.organizations.lock(acme);
        const userId = (await store.users.findByUsernameKey('adam'))!.id;
        await tx.organizations.addMember({
          organizationId: acme,
          userId,
          role: 'admin',
          createdAt: new Date(),
          updatedAt: new Date(),
        });
      });
      await t.http.post(`/orgs/${acme}/projects`).set(bearer(adam)).send({}).expect(200);
    });

    it('reads the membership with the session, in one read', async () => {
      t.calls.clear();
      await get(`/orgs/${acme}/projects`, mia).expect(200);
      expect(t.calls.get('sessions.check')).to.equal(1);
      expect(t.calls.get('organizations.membership') ?? 0).to.equal(0);
    });

    it('a global requirement first: it goes in the session’s read, and the membership is read on its own', async () => {
      await t.accounts.access.createPermission('reports.read');
      await t.accounts.access.createRole('analyst');
      await t.accounts.access.grantPermission('analyst', 'reports.read');
      // Without the global permission: 403 before the organization is looked at.
      expect((await get(`/orgs/${randomUUID()}/reports`, mia).expect(403)).body).to.deep.equal(GLOBAL_DENIED);
      await t.accounts.access.grantRole('mia', 'analyst');
      await t.accounts.access.grantRole('nina', 'analyst');
      t.calls.clear();
      await get(`/orgs/${acme}/reports`, mia).expect(200, { organization: acme, reports: [] });
      expect(t.calls.get('sessions.check')).to.equal(1);
      expect(t.calls.get('organizations.membership')).to.equal(1);
      // A global grant gives nothing inside an organization.
      expect((await get(`/orgs/${acme}/reports`, nina).expect(404)).body).to.deep.equal(NOT_FOUND);
      await get(`/orgs/not-a-uuid/reports`, mia).expect(404);
    });

    it('keeps the order of the requirements: the membership, then the second factor', async () => {
      expect((await get(`/orgs/${globex}/vault`, adam).expect(404)).body).to.deep.equal(NOT_FOUND);
      const response = await get(`/orgs/${acme}/vault`, adam).expect(403);
      expect(response.body.detail.code).to.equal('second_factor_required');
    });

    it('@CurrentOrganization() without a guard authenticates and reads itself', async () => {
      await get(`/orgs/${acme}/whoami`, mia).expect(200, {
        id: acme,
        role: 'member',
        permissions: ['gatehouse.members.read', 'projects.read'],
      });
      const missing = await get(`/orgs/${acme}/whoami`).expect(401);
      expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
      expect(missing.headers['www-authenticate']).to.equal('Bearer');
      await get(`/orgs/${acme}/whoami`, 'E'.repeat(43)).expect(401);
      expect((await get(`/orgs/${acme}/whoami`, nina).expect(404)).body).to.deep.equal(NOT_FOUND);
    });

    it('finds the id under another parameter name', async () => {
      await get(`/teams/${acme}/board`, mia).expect(200, { organization: acme, role: 'member' });
      expect((await get(`/teams/${acme}/board`, nina).expect(404)).body).to.deep.equal(NOT_FOUND);
      await get(`/teams/nope/board`).expect(401);
    });

    it('answers 404 everywhere when the organization is deleted', async () => {
      await store.transaction(async (tx) => {
        await tx.organizations.lock(acme);
        await tx.organizations.delete(acme);
      });
      expect((await get(`/orgs/${acme}/projects`, olivia).expect(404)).body).to.deep.equal(NOT_FOUND);
    });
  });
}

/** As routing-controllers' Express driver calls the checker: Node's request, with the route's params on it. */
function actionFor(token: string, orgId: string) {
  const req = Object.assign(new IncomingMessage(new Socket()), { params: { orgId } });
  req.headers.authorization = `Bearer ${token}`;
  return { request: req, response: new ServerResponse(req) };
}

describe('organization guards: how they decide (SQLite file)', () => {
  const sqlite = TEST_STORES.find((kind) => kind.name === 'SQLite')!;
  let t: TestApp;
  let acme: string;
  let token: string;

  freshStoreEachTest(sqlite, async (store) => {
    t = buildTestApp({ store, mount: () => void Container.set(ACCOUNT_OPTIONS, ORGANIZATION_OPTIONS) });
    token = await t.loginNewUser('mia');
    acme = await organizationWith(store, { mia: 'member' });
    const guards = accountGuards({ controllers: [] });
    // Each request-path query is compiled at its first run; the direct reads start after that.
    await guards.authorizationChecker(actionFor(token, acme), ['org']);
    await guards.authorizationChecker(actionFor(token, acme), []);
    t.calls.clear();
    return () => t.accounts.drain();
  });

  it('grants and refuses within the call, from the one read of the session and the membership', () => {
    const guards = accountGuards({ controllers: [] });
    expect(guards.authorizationChecker(actionFor(token, acme), ['org'])).to.equal(true);
    expect(guards.authorizationChecker(actionFor(token, acme), ['org:perm:projects.read'])).to.equal(true);
    expect(() => guards.authorizationChecker(actionFor(token, acme), ['org:perm:projects.write']))
      .to.throw(AccountHttpError)
      .with.property('code', 'permission_denied');
    expect(() => guards.authorizationChecker(actionFor(token, randomUUID()), ['org']))
      .to.throw(AccountHttpError)
      .with.property('code', 'organization_not_found');
    expect(() => guards.authorizationChecker(actionFor(token, 'nope'), ['org']))
      .to.throw(AccountHttpError)
      .with.property('code', 'organization_not_found');
    expect(t.calls.get('sessions.check')).to.equal(5);
    expect(t.calls.get('organizations.membership') ?? 0).to.equal(0);
  });

  it('takes the id from a resolver when the host gives one, and reads nothing else', () => {
    const guards = accountGuards({
      controllers: [],
      organizationResolver: (action) => (action.request as IncomingMessage & { params: { team: string } }).params.team,
    });
    const resolved = actionFor(token, 'ignored');
    (resolved.request as unknown as { params: Record<string, string> }).params = { team: acme };
    expect(guards.authorizationChecker(resolved, ['org:perm:projects.read'])).to.equal(true);
    const other = actionFor(token, acme);
    (other.request as unknown as { params: Record<string, string> }).params = { team: randomUUID() };
    expect(() => guards.authorizationChecker(other, ['org']))
      .to.throw(AccountHttpError)
      .with.property('code', 'organization_not_found');
  });
});
