import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import { MAX_API_KEY_NAME, MAX_API_KEY_SCOPES, MAX_POSSESSED_KEY } from '../../src/controllers/api-keys/api-key-bodies';
import { mintApiKey } from '../../src/services/api-keys/api-key-format';
import { resolveSchema, type Document, type Operation } from './api-document';

const document = () => accountApiDocument({ prefix: '/auth' }) as unknown as Document;

function codesOf(operation: Operation): string[] {
  return Object.values(operation.responses)
    .flatMap((response) => response['x-error-codes'] ?? [])
    .map((entry) => entry.code);
}

function successOf(operation: Operation): [string, unknown] {
  const [status] = Object.keys(operation.responses).filter((key) => key.startsWith('2'));
  return [status, operation.responses[status].content['application/json'].schema];
}

describe('OpenAPI: the API keys’ routes', () => {
  it('lists each route with its status, answer, errors and whether it needs a session', () => {
    const doc = document();
    const routes: [string, string, string, string, string[], boolean][] = [
      ['/api-keys', 'get', '200', 'ApiKeyList', [], true],
      ['/api-keys/scopes', 'get', '200', 'ApiKeyScopes', [], true],
      [
        '/api-keys',
        'post',
        '201',
        'CreatedApiKey',
        [
          'reauthentication_required',
          'invalid_scope',
          'invalid_api_key_expiry',
          'api_key_name_taken',
          'api_key_limit_reached',
        ],
        true,
      ],
      ['/api-keys/{keyId}', 'delete', '200', 'Detail', ['api_key_not_found'], true],
      ['/api-keys/revoke-all', 'post', '200', 'ApiKeysRevoked', [], true],
      ['/api-keys/revoke', 'post', '200', 'Detail', ['rate_limited'], false],
      ['/admin/users/{id}/api-keys', 'get', '200', 'ApiKeyList', ['permission_denied', 'user_not_found'], true],
      [
        '/admin/users/{id}/api-keys',
        'post',
        '201',
        'CreatedApiKey',
        ['permission_denied', 'reauthentication_required', 'not_a_service_account', 'invalid_scope'],
        true,
      ],
      [
        '/admin/users/{id}/api-keys/{keyId}',
        'delete',
        '200',
        'Detail',
        ['permission_denied', 'reauthentication_required', 'api_key_not_found', 'user_not_found'],
        true,
      ],
      ['/admin/users/{id}/api-keys/revoke-all', 'post', '200', 'ApiKeysRevoked', ['reauthentication_required'], true],
      ['/admin/service-accounts', 'post', '201', 'ServiceAccount', ['invalid_username', 'permission_denied'], true],
      ['/admin/service-accounts', 'get', '200', 'ServiceAccountList', ['permission_denied'], true],
    ];
    for (const [path, method, status, answer, codes, bearer] of routes) {
      const operation = doc.paths[path]?.[method];
      const what = `${method} ${path}`;
      expect(operation, what).to.not.equal(undefined);
      expect(successOf(operation), what).to.deep.equal([status, { $ref: `#/components/schemas/${answer}` }]);
      expect(codesOf(operation), what).to.include.members([...codes, 'api_key_not_allowed']);
      expect(codesOf(operation).includes('invalid_session_token'), what).to.equal(bearer);
      expect(operation.security, what).to.deep.equal(bearer ? [{ bearerAuth: [] }] : []);
    }
  });

  it('says on every operation of the document that an API key is refused there (403 api_key_not_allowed)', () => {
    const doc = document();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (method === 'head') continue;
        expect(codesOf(operation), `${method} ${path}`).to.include('api_key_not_allowed');
      }
    }
  });

  it('describes the bodies with their bounds, and the created key with its format', () => {
    const doc = document();
    const create = resolveSchema(doc, doc.paths['/api-keys'].post.requestBody!.content['application/json'].schema);
    expect(create.required).to.have.members(['name', 'scopes']);
    expect(Object.keys(create.properties)).to.have.members(['name', 'scopes', 'expires_in_days']);
    expect(create.properties.name).to.include({ type: 'string', maxLength: MAX_API_KEY_NAME });
    expect(create.properties.scopes).to.include({ type: 'array', maxItems: MAX_API_KEY_SCOPES });
    expect(create.properties.expires_in_days).to.include({ type: 'integer', minimum: 1 });
    const revoke = resolveSchema(
      doc,
      doc.paths['/api-keys/revoke'].post.requestBody!.content['application/json'].schema,
    );
    expect(revoke.properties.key).to.include({ type: 'string', maxLength: MAX_POSSESSED_KEY });
    for (const body of ['/password/change', '/password-reset/confirm']) {
      const schema = resolveSchema(doc, doc.paths[body].post.requestBody!.content['application/json'].schema);
      expect(schema.properties.revoke_api_keys, body).to.include({ type: 'boolean' });
      expect(schema.required, body).to.not.include('revoke_api_keys');
    }
    const created = doc.components.schemas.CreatedApiKey;
    expect(new RegExp(created.properties.key.pattern).test(mintApiKey('gatehouse'))).to.equal(true);
    expect(new RegExp(created.properties.key.pattern).test('x'.repeat(43))).to.equal(false);
    const listed = doc.components.schemas.ApiKey;
    expect(Object.keys(listed.properties)).to.not.include.members(['key', 'keyHash', 'key_hash', 'hash']);
  });

  it('names the answers’ fields in snake_case, as every other answer of the API', () => {
    const { schemas } = document().components;
    const fields = [
      'id',
      'name',
      'last_four',
      'scopes',
      'created_at',
      'expires_at',
      'expired',
      'last_used_at',
      'last_used_ip',
      'created_by',
    ];
    expect(Object.keys(schemas.ApiKey.properties)).to.have.members(fields);
    expect(schemas.ApiKey.required).to.have.members(fields);
    expect(schemas.ApiKeyList.required).to.deep.equal(['api_keys']);
    expect(Object.keys(schemas.ApiKeyList.properties)).to.deep.equal(['api_keys']);
    expect(schemas.CreatedApiKey.required).to.have.members(['key', 'api_key']);
    expect(Object.keys(schemas.CreatedApiKey.properties)).to.have.members(['key', 'api_key']);
    expect(Object.keys(schemas.ApiKeysRevoked.properties)).to.have.members(['detail', 'revoked']);
    const serviceAccount = ['id', 'username', 'roles', 'created_at', 'created_by', 'disabled'];
    expect(Object.keys(schemas.ServiceAccount.properties)).to.have.members(serviceAccount);
    expect(schemas.ServiceAccount.required).to.have.members(serviceAccount);
    expect(Object.keys(schemas.ServiceAccountList.properties)).to.deep.equal(['service_accounts']);
  });
});
