// The README's host application on Express ("On Express"): the same controller, guards, store, sender and
// serializer as examples/host-app.ts, mounted with `gatehouse/express`; kept compiling and tested
// (test/examples/host-app.test.ts). In your app, import from 'gatehouse' and 'gatehouse/express' instead of '../src'.
// It is written out whole, without Koa, as a host on Express would write it.
import 'reflect-metadata';
import express from 'express';
import {
  Authorized,
  Body,
  CurrentUser,
  Get,
  JsonController,
  NotFoundError,
  Param,
  Post,
  useContainer,
  useExpressServer,
} from 'routing-controllers';
import { Container, Service } from 'typedi';
import {
  ACCOUNT_OPTIONS,
  EMAIL_SENDER,
  EmailLinks,
  resolveAccountService,
  SmtpEmailSender,
  AccountUser,
  CurrentOrganization,
  CurrentCredential,
  USER_SERIALIZER,
  USER_STORE,
} from '../src';
import { accountGuards, gatehouseErrors, mountAccountRoutes } from '../src/express';
import { SqliteUserStore } from '../src/sqlite';

@Service()
@JsonController('/posts')
export class PostsController {
  /** Anyone; signed-in readers are greeted by name. */
  @Get('/')
  list(@CurrentUser({ required: false }) user?: AccountUser) {
    return { viewer: user?.username ?? null, posts: [] };
  }

  /** Any valid session. */
  @Authorized()
  @Get('/mine')
  mine(@CurrentUser() user: AccountUser) {
    return { author: user.username, posts: [] };
  }

  /** A session required by `@CurrentUser` alone. The user is an AccountUser: sent as it is, it holds no secret. */
  @Get('/author')
  author(@CurrentUser({ required: true }) user: AccountUser) {
    return user;
  }

  /** Holders of the posts.write permission, through any of their roles. */
  @Authorized('perm:posts.write')
  @Post('/')
  create(@CurrentUser() user: AccountUser, @Body() post: { title?: string }) {
    return { author: user.username, title: post.title ?? '' };
  }

  /**
   * Machine clients and people alike: an API key whose scopes include posts.read (its owner still holding it), or a
   * session of a holder. `@CurrentUser()` is the key's owner; `@CurrentCredential()` says which it was.
   */
  @Authorized('perm:posts.read')
  @Get('/feed')
  feed(@CurrentUser() user: AccountUser, @CurrentCredential() credential: CurrentCredential) {
    const via = credential.kind === 'api_key' ? { kind: 'api_key', keyId: credential.keyId } : { kind: 'session' };
    return { reader: user.username, via, posts: [] };
  }

  /** People only: an API key gets 403 api_key_not_allowed, whatever its scopes. */
  @Authorized('session')
  @Get('/settings')
  settings(@CurrentUser() user: AccountUser) {
    return { owner: user.username };
  }

  /** Editors only. */
  @Authorized('role:editor')
  @Get('/drafts')
  drafts() {
    return { drafts: [] };
  }

  /** The host's own errors are rendered by gatehouseErrors(): 404 {"detail": {"detail": "No such post", ...}}. */
  @Get('/:id')
  one(@Param('id') _id: string) {
    throw new NotFoundError('No such post');
  }
}

/** The example's organization role template: `owner` holds every permission (implicit), admins write projects, members read them. */
export const PROJECT_ROLES = {
  admin: [
    'gatehouse.members.read',
    'gatehouse.members.invite',
    'gatehouse.members.manage',
    'gatehouse.organization.update',
    'projects.read',
    'projects.write',
  ],
  member: ['gatehouse.members.read', 'projects.read'],
};

/**
 * Routes scoped to one organization: its id is the `:orgId` route parameter, checked against the caller's membership
 * (read with the session on every request) by the guards; never taken from the session or the body.
 */
@Service()
@JsonController('/orgs/:orgId/projects')
export class ProjectsController {
  /** Any member of the organization; others (and unknown or malformed ids) get 404 organization_not_found. */
  @Authorized('org')
  @Get('/')
  list(@CurrentOrganization() organization: CurrentOrganization) {
    return { organization: organization.id, role: organization.role, projects: [] };
  }

  /** Members whose role holds projects.write (owners and admins); other members get 403 permission_denied. */
  @Authorized('org:perm:projects.write')
  @Post('/')
  create(
    @CurrentOrganization() organization: CurrentOrganization,
    @CurrentUser() user: AccountUser,
    @Body() project: { name?: string },
  ) {
    return { organization: organization.id, author: user.username, name: project.name ?? '' };
  }
}

export interface HostAppSettings {
  databaseFile: string;
  smtpUrl: string;
  secretKey: string;
  publicUrl: string;
}

export async function createHostApp(settings: HostAppSettings): Promise<express.Express> {
  useContainer(Container);
  Container.set(USER_STORE, await SqliteUserStore.open({ filename: settings.databaseFile }));
  Container.set(
    EMAIL_SENDER,
    new SmtpEmailSender({
      url: settings.smtpUrl,
      from: 'Example <no-reply@example.com>',
      links: new EmailLinks({ publicUrl: settings.publicUrl, prefix: '/auth' }),
    }),
  );
  // One role template for every organization (checked here, at boot; the guards below are checked against it).
  Container.set(ACCOUNT_OPTIONS, { secretKey: settings.secretKey, organizations: { roles: PROJECT_ROLES } });
  // Optional: what GET /auth/me returns (and nothing else).
  Container.set(USER_SERIALIZER, (user: AccountUser) => ({ name: user.username, verified: user.verified }));
  const accounts = resolveAccountService(); // fails here, at boot, if a token is missing or an option is bad
  accounts.delivery?.start(); // email goes out right after each change; at shutdown, `await accounts.delivery?.stop()`

  const app = express();
  mountAccountRoutes(app, { prefix: '/auth' }); // gatehouseHttp() first, then the 11 account routes
  useExpressServer(app, {
    routePrefix: '/api',
    controllers: [PostsController, ProjectsController],
    defaultErrorHandler: false, // let gatehouseErrors() render errors: JSON, no stack, no internal message
    // Checks at boot that every organization guard of these controllers names the template's roles and permissions
    // and that its route has :orgId.
    ...accountGuards({ controllers: [PostsController, ProjectsController] }),
  });
  app.use(gatehouseErrors()); // last: every error of the routes above in the same JSON shape, JSON 404s
  return app;
}
