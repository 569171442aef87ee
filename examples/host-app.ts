// A host application that mounts Gatehouse beside its own controllers: the README's example, kept compiling and
// tested (test/examples/host-app.test.ts). In your app, import from 'gatehouse' instead of '../src'.
import 'reflect-metadata';
import Koa from 'koa';
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
  useKoaServer,
} from 'routing-controllers';
import { Container, Service } from 'typedi';
import {
  ACCOUNT_OPTIONS,
  accountGuards,
  EMAIL_SENDER,
  EmailLinks,
  mountAccountRoutes,
  resolveAccountService,
  SmtpEmailSender,
  AccountUser,
  CurrentOrganization,
  CurrentCredential,
  USER_SERIALIZER,
  USER_STORE,
} from '../src';
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

  /** The host's own errors are rendered by gatehouseHttp() too: 404 {"detail": {"detail": "No such post", ...}}. */
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

export async function createHostApp(settings: HostAppSettings): Promise<Koa> {
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
  // Email goes out right after each change that causes it. This also polls, for mail a restart left queued or due
  // for a retry; at shutdown, `await accounts.delivery?.stop()`. (Delivering from another process instead:
  // ACCOUNT_OPTIONS.outbox.worker = false, and run `gatehouse worker`.)
  accounts.delivery?.start();

  const app = new Koa();
  // gatehouseHttp() first (JSON errors, a 16 KiB JSON body limit, security headers), then the account routes under
  // /auth; docs/guides/mounting-koa.md shows the same as two lines you write yourself.
  mountAccountRoutes(app, { prefix: '/auth' });
  useKoaServer(app, {
    routePrefix: '/api',
    controllers: [PostsController, ProjectsController],
    defaultErrorHandler: false, // let gatehouseHttp() render errors: JSON, no stack, no internal message
    // Checks at boot that every organization guard of these controllers names the template's roles and permissions
    // and that its route has :orgId.
    ...accountGuards({ controllers: [PostsController, ProjectsController] }),
  });
  return app;
}
