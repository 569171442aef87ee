import { expect } from 'chai';
import type { Response } from 'supertest';

/** The document as the tests read it. */
export interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}
export interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, DocumentedResponse>;
}
interface DocumentedResponse {
  headers?: Record<string, unknown>;
  content: Record<string, { schema: Schema }>;
  'x-error-codes'?: { code: string; description: string }[];
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON Schema is any JSON, walked by key
export type Schema = Record<string, any>;

export function resolveSchema(document: Document, schema: Schema): Schema {
  return typeof schema.$ref === 'string' ? document.components.schemas[schema.$ref.split('/').pop()!] : schema;
}

/**
 * Fails unless the answer is one the document describes for that operation: its status is listed, an error's code
 * is among the codes of that status, a success body has the schema's required fields, and the headers an answer
 * carries (`Retry-After`, `WWW-Authenticate`) are declared.
 */
export function expectDocumented(document: Document, method: string, path: string, response: Response): void {
  const where = `${method.toUpperCase()} ${path} → ${response.status} ${JSON.stringify(response.body)}`;
  const operation = document.paths[path]?.[method];
  expect(operation, `${where}: no such operation`).to.exist;
  const documented = operation.responses[String(response.status)];
  expect(documented, `${where}: status not documented`).to.exist;
  const schema = documented.content['application/json'].schema;
  if (response.status < 400) {
    const required: string[] = resolveSchema(document, schema).required ?? [];
    expect(Object.keys(response.body), where).to.include.members(required);
  } else if (typeof response.body.detail === 'string') {
    expect(
      (schema.oneOf ?? [schema]).map((item: Schema) => item.$ref),
      where,
    ).to.include('#/components/schemas/NotAuthenticated');
  } else {
    expect(
      documented['x-error-codes']!.map((item) => item.code),
      where,
    ).to.include(response.body.detail.code);
  }
  if (response.headers['retry-after'])
    expect(documented.headers, `${where}: Retry-After`).to.have.property('Retry-After');
  if (response.headers['www-authenticate'])
    expect(documented.headers, `${where}: WWW-Authenticate`).to.have.property('WWW-Authenticate');
}
