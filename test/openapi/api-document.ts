/** The document as the tests read it. */
export interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}
export interface Operation {
  operationId: string;
  tags: string[];
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
