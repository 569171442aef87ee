// The two pieces every schema file of the document builds with. They live apart from `schemas.ts` so that
// `admin-schemas.ts`, which `schemas.ts` assembles, can use them without importing back the file that imports it.

/** A JSON object of the OpenAPI document (OpenAPI 3.1, whose schemas are JSON Schema 2020-12). */
export type JsonObject = Record<string, unknown>;

/** A `$ref` to a component of the document. */
export function ref(name: string, kind: 'schemas' | 'headers' | 'responses' = 'schemas'): JsonObject {
  return { $ref: `#/components/${kind}/${name}` };
}
