import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import type { Document, Operation } from './api-document';
import { PATH_VALUES } from '../../src/http/path-values';

const document = () => accountApiDocument({ prefix: '/auth' }) as unknown as Document;

/** The error codes an operation documents, over all its statuses. */
function codesOf(operation: Operation): string[] {
  return Object.values(operation.responses)
    .flatMap((response) => response['x-error-codes'] ?? [])
    .map((entry) => entry.code);
}

function successSchemaOf(operation: Operation): unknown {
  const [status] = Object.keys(operation.responses).filter((key) => key.startsWith('2'));
  return operation.responses[status].content['application/json'].schema;
}

/**
 * The routes of the specification, as they were before the sessions and email-change routes: unchanged, but for the
 * login answer, which is a session or (for an account with a second factor) a challenge since issue 17.
 */
const SPEC_ROUTES: [string, string, string][] = [
  ['/register', 'post', 'Detail'],
  ['/verify-email', 'post', 'Detail'],
  ['/resend-verification', 'post', 'Detail'],
  ['/login', 'post', 'LoginAnswer'],
  ['/logout', 'post', 'Detail'],
  ['/logout-all', 'post', 'Detail'],
  ['/me', 'get', 'User'],
  ['/password-reset/request', 'post', 'Detail'],
  ['/password-reset/confirm', 'post', 'Detail'],
  ['/password/change', 'post', 'Detail'],
  ['/account', 'delete', 'Detail'],
];

describe('OpenAPI: the sessions and email-change routes', () => {
  it('lists each new route with its answer, its errors and whether it needs a session', () => {
    const doc = document();
    const routes: [string, string, string, string[], boolean][] = [
      ['/sessions', 'get', 'SessionList', [], true],
      ['/sessions/{id}', 'delete', 'Detail', ['session_not_found', 'reauthentication_required'], true],
      ['/sessions/end-others', 'post', 'OtherSessionsEnded', ['reauthentication_required'], true],
      ['/reauthenticate', 'post', 'Reauthenticated', ['invalid_credentials', 'rate_limited'], true],
      [
        '/email-change',
        'post',
        'Detail',
        ['reauthentication_required', 'invalid_email', 'email_change_unavailable', 'rate_limited'],
        true,
      ],
      ['/email-change/confirm', 'post', 'Detail', ['invalid_email_change_token', 'rate_limited'], false],
    ];
    for (const [path, method, answer, codes, bearer] of routes) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).to.not.equal(undefined);
      expect(successSchemaOf(operation), path).to.deep.equal({ $ref: `#/components/schemas/${answer}` });
      expect(codesOf(operation), path).to.include.members(codes);
      expect(codesOf(operation).includes('invalid_session_token'), path).to.equal(bearer);
      expect(operation.security, path).to.deep.equal(bearer ? [{ bearerAuth: [] }] : []);
    }
    expect(doc.paths['/email-change'].post.responses['501']).to.not.equal(undefined);
    expect(doc.paths['/sessions/{id}'].delete.responses['404']).to.not.equal(undefined);
  });

  it('names the session id as a required path parameter of DELETE /sessions/{id}, with its pattern', () => {
    const operation = document().paths['/sessions/{id}'].delete as Operation & { parameters?: unknown[] };
    expect(operation.parameters).to.deep.equal([
      {
        in: 'path',
        name: 'id',
        required: true,
        // The rule the route checks the id with, so a malformed one is refused as the document says.
        schema: { ...PATH_VALUES.sessionId.schema },
        description: 'The `id` of the session, as `GET /sessions` lists it.',
      },
    ]);
  });

  it('says that DELETE /sessions/end-others is DELETE /sessions/{id}, as the routers read it', () => {
    const paths = document().paths;
    const shadow = paths['/sessions/end-others'].delete as Operation & Record<string, unknown>;
    expect(shadow['x-routed-as']).to.equal('/sessions/{id}');
    expect(shadow.parameters).to.equal(undefined);
    expect(shadow.operationId).to.not.equal(paths['/sessions/{id}'].delete.operationId);
    expect(Object.keys(paths['/sessions/end-others']).sort()).to.deep.equal(['delete', 'post']);
  });

  it('describes a session with every field the list answers, nullable where the client may say nothing', () => {
    const schemas = document().components.schemas;
    expect(schemas.SessionList.properties.sessions.items).to.deep.equal({ $ref: '#/components/schemas/Session' });
    const session = schemas.Session;
    expect(session.required).to.have.members([
      'id',
      'current',
      'created_at',
      'last_used_at',
      'expires_at',
      'ip_address',
      'user_agent',
      'browser',
      'os',
      'device',
    ]);
    expect(session.properties.ip_address.type).to.deep.equal(['string', 'null']);
    expect(session.properties.device.enum).to.deep.equal(['desktop', 'mobile', 'tablet', 'tv', null]);
    expect(JSON.stringify(session)).to.not.match(/token_hash|"token"/);
  });

  it('leaves the specification’s routes as they were', () => {
    const doc = document();
    for (const [path, method, answer] of SPEC_ROUTES) {
      expect(Object.keys(doc.paths[path] ?? {}), path).to.include(method);
      expect(successSchemaOf(doc.paths[path][method]), path).to.deep.equal({ $ref: `#/components/schemas/${answer}` });
    }
    const login = doc.components.schemas.LoginBody;
    expect(Object.keys(login.properties).sort()).to.deep.equal(['password', 'username']);
  });
});
