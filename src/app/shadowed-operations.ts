import type { JsonObject } from '../openapi/schemas';
import type { Paths } from './account-api-doc-pages';

/**
 * A literal path that a templated one also matches (`/sessions/end-others` and `/sessions/{id}`) is routed by both
 * drivers to the templated path's actions for the methods it has none of its own: `DELETE /sessions/end-others` is
 * `DELETE /sessions/{id}` with the id `end-others`, and its OPTIONS and 405 answers list DELETE. The document says
 * so, so that it and the routers agree: each such operation is copied onto the literal path, without the path
 * parameter it fills, under an operationId of its own, and marked `x-routed-as` with the path it belongs to.
 */
export function addShadowedOperations(paths: Paths): void {
  const templated = Object.keys(paths).filter((path) => path.includes('{'));
  for (const literal of Object.keys(paths).filter((path) => !path.includes('{'))) {
    for (const template of templated) {
      const pattern = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      if (!new RegExp(`^${pattern}$`, 'i').test(literal)) continue;
      for (const [method, operation] of Object.entries(paths[template])) {
        if (paths[literal][method]) continue;
        paths[literal][method] = shadowOf(operation, template, literal);
      }
    }
  }
}

function shadowOf(operation: JsonObject, template: string, literal: string): JsonObject {
  const parameters = ((operation.parameters as JsonObject[] | undefined) ?? []).filter((p) => p.in !== 'path');
  const shadow: JsonObject = {
    ...operation,
    // Marks the copy for readers (and the tests comparing the document with the mounted routes).
    'x-routed-as': template,
    operationId: `${String(operation.operationId)}At${literal.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    description: `\`${template}\` with \`${literal.slice(literal.lastIndexOf('/') + 1)}\` as its parameter, as the router reads it.`,
  };
  if (parameters.length) shadow.parameters = parameters;
  else delete shadow.parameters;
  return shadow;
}
