import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import { checkPermissionName, checkRoleName } from '../../src/services/identity';
import { PREFIX } from '../support/test-app';
import { buildAdminApp } from '../http/admin-support';

interface Schema {
  type?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface Parameter {
  in: string;
  name: string;
  schema: Schema;
}
interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: { schemas: Record<string, Schema> };
}

const document = () => accountApiDocument({ prefix: PREFIX }) as unknown as Document;

/** Names on both sides of the rule: the pattern must take exactly those the core takes. */
const NAMES = [
  'editor',
  'posts.write',
  'a',
  'A1:b_c-d.e',
  'x'.repeat(64),
  'x'.repeat(65),
  '',
  '-editor',
  '.hidden',
  'with space',
  'tab\there',
  'nul\u0000',
  'é',
  'a/b',
  'a%2Fb',
];

function coreTakes(check: (name: string) => string, name: string): boolean {
  try {
    check(name);
    return true;
  } catch {
    return false;
  }
}

function schemaTakes(schema: Schema, name: string): boolean {
  return (
    new RegExp(schema.pattern!, 'u').test(name) &&
    [...name].length >= (schema.minLength ?? 0) &&
    [...name].length <= (schema.maxLength ?? Infinity)
  );
}

describe('OpenAPI: role and permission names carry the core’s rule as a schema', () => {
  it('in the bodies, the role filter and the path parameters, the pattern takes exactly what the core takes', () => {
    const doc = document();
    const where: [string, Schema, (name: string) => string][] = [
      ['NameBody.name', doc.components.schemas.NameBody.properties!.name, checkRoleName],
      ['NameBody.name (permissions)', doc.components.schemas.NameBody.properties!.name, checkPermissionName],
    ];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          const label = `${method} ${path} ${parameter.in} ${parameter.name}`;
          if (parameter.name === 'role') where.push([label, parameter.schema, checkRoleName]);
          if (parameter.name === 'permission') where.push([label, parameter.schema, checkPermissionName]);
        }
      }
    }
    // Two bodies' name, the list's role filter, and the role and permission of four routes.
    expect(where.length).to.be.at.least(2 + 1 + 2 + 2 * 2);
    for (const [label, schema, check] of where) {
      expect(schema.type, label).to.equal('string');
      expect(schema.pattern, label).to.be.a('string');
      expect(schema.maxLength, label).to.equal(64);
      for (const name of NAMES)
        expect(schemaTakes(schema, name), `${label}: ${JSON.stringify(name)}`).to.equal(coreTakes(check, name));
    }
  });

  it('the names in the answers (roles, permissions) carry the same schema', () => {
    const schemas = document().components.schemas;
    const names = [
      schemas.Role.properties!.name,
      schemas.Role.properties!.permissions.items!,
      schemas.UserRoles.properties!.roles.items!,
      schemas.PermissionList.properties!.permissions.items!,
      schemas.NameCreated.properties!.name,
    ];
    const { type, pattern, minLength, maxLength } = schemas.NameBody.properties!.name;
    expect(pattern).to.be.a('string');
    for (const schema of names) expect(schema).to.deep.equal({ type, pattern, minLength, maxLength });
  });

  it('over HTTP, a name the pattern takes is created and one it refuses is a 400, in a body or a path', async () => {
    const { t, admin } = await buildAdminApp('koa');
    const schema = document().components.schemas.NameBody.properties!.name;
    for (const name of NAMES.filter((candidate) => !candidate.includes('\u0000') && !candidate.includes('\t'))) {
      const role = await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({ name });
      expect(role.status, `${JSON.stringify(name)}: ${role.text}`).to.equal(schemaTakes(schema, name) ? 201 : 400);
      const permission = await t.http.post(`${PREFIX}/admin/permissions`).set(admin).send({ name });
      expect(permission.status, JSON.stringify(name)).to.equal(schemaTakes(schema, name) ? 201 : 400);
    }
    const path = await t.http.put(`${PREFIX}/admin/roles/with%20space/permissions/editor`).set(admin);
    expect(path.status).to.equal(400);
    expect(path.body.detail.code).to.equal('invalid_role');
  });
});
