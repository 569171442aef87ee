import type { JsonObject } from '../openapi/schemas';
import type { Paths } from './account-api-doc-pages';

/**
 * A path that a more templated one also matches (`/sessions/end-others` and `/sessions/{id}`;
 * `/admin/users/{id}/api-keys/revoke-all` and `/admin/users/{id}/api-keys/{keyId}`) is routed by both drivers to
 * the templated path's actions for the methods it has none of its own: `DELETE /sessions/end-others` is
 * `DELETE /sessions/{id}` with the id `end-others`, and its OPTIONS and 405 answers list DELETE. The document says
 * so, so that it and the routers agree: each such operation is copied onto the other path, without the path
 * parameter it fills, under an operationId of its own, and marked `x-routed-as` with the path it belongs to.
 */
export function addShadowedOperations(paths: Paths): void {
  const templated = Object.keys(paths).filter((path) => path.includes('{'));
  for (const literal of Object.keys(paths)) {
    for (const template of templated) {
      // Only a path with fewer parameters is shadowed: a literal segment where the template has a parameter.
      if (template === literal || parameterCount(literal) >= parameterCount(template)) continue;
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

function parameterCount(path: string): number {
  return path.split('{').length - 1;
}

function shadowOf(operation: JsonObject, template: string, literal: string): JsonObject {
  // The parameters the shadowing path still has keep their description; the one it fills is gone.
  const parameters = ((operation.parameters as JsonObject[] | undefined) ?? []).filter(
    (p) => p.in !== 'path' || literal.includes(`{${String(p.name)}}`),
  );
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
