import type { JsonObject } from '../../openapi/schemas';
import { html, SafeHtml } from '../html';
import { layout } from '../layout';

/** The parts of the document this page reads. */
type Content = Record<string, { schema: JsonObject }>;
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  requestBody?: { content: Content };
  responses: Record<string, { content?: Content; 'x-error-codes'?: { code: string; description: string }[] }>;
}
interface Components {
  schemas: Record<string, JsonObject>;
  securitySchemes: Record<string, { description: string }>;
}

/**
 * GET {prefix}/reference: the OpenAPI document as a page people read, rendered on the server from the document
 * itself (no script, nothing from another site): every operation with its body fields, success body and error
 * codes by status.
 */
export function apiReferencePage(document: JsonObject, prefix: string): string {
  const info = document.info as { title: string; description: string };
  const schemes = (document.components as Components).securitySchemes;
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const operations = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  );
  const body = html`${blocks(info.description)}
<p>Base URL: <code>${(document.servers as { url: string }[])[0].url}</code> on this host. Machine-readable:
<a href="${prefix}/openapi.json">${prefix}/openapi.json</a> (OpenAPI ${String(document.openapi)}).</p>
<h2>Authentication</h2>
${Object.values(schemes).map((scheme) => html`<p>${markdown(scheme.description)}</p>`)}
<h2>Routes</h2>
<ul class="toc">
${operations.map(
  ({ path, method, operation }) =>
    html`<li><a href="#${operation.operationId}"><span class="method">${method}</span> <code>${path}</code></a></li>`,
)}
</ul>
${operations.map(({ path, method, operation }) => operationSection(document, path, method, operation))}`;
  return layout({ prefix, title: info.title, body, wide: true });
}

const BEARER_NEEDED = html`Needs <code>Authorization: Bearer &lt;access_token&gt;</code>.`;
const NO_BODY = html`<p>No request body.</p>`;

function operationSection(document: JsonObject, path: string, method: string, operation: Operation): SafeHtml {
  const requestSchema = operation.requestBody?.content['application/json']?.schema;
  const [successStatus, ...errorStatuses] = Object.keys(operation.responses);
  const success = operation.responses[successStatus].content?.['application/json']?.schema;
  return html`<section class="operation" id="${operation.operationId}" aria-labelledby="${operation.operationId}-title">
<h2 id="${operation.operationId}-title"><span class="method">${method}</span> <code>${path}</code></h2>
<p><strong>${operation.summary}</strong>${operation.description ? html` — ${markdown(operation.description)}` : ''}</p>
<p>${operation.security?.length ? BEARER_NEEDED : 'No authentication.'}</p>
${requestSchema ? html`<h3>Request body (JSON)</h3>${fieldsTable(document, requestSchema)}` : NO_BODY}
<h3>Success: ${successStatus}</h3>
${success ? fieldsTable(document, success) : ''}
<h3>Errors</h3>
<table>
<thead><tr><th scope="col">Status</th><th scope="col">Code</th><th scope="col">When</th></tr></thead>
<tbody>
${errorStatuses.flatMap((status) =>
  (operation.responses[status]['x-error-codes'] ?? []).map(
    (error) =>
      html`<tr><td>${status}</td><td><code>${error.code}</code></td><td>${markdown(error.description)}</td></tr>`,
  ),
)}
</tbody>
</table>
</section>`;
}

/** A table of an object schema's fields: name, type, whether required, and their rules in words. */
function fieldsTable(document: JsonObject, schema: JsonObject): SafeHtml {
  const resolved = resolve(document, schema);
  const properties = (resolved.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((resolved.required ?? []) as string[]);
  return html`${resolved.description ? html`<p>${markdown(String(resolved.description))}</p>` : ''}
<table>
<thead>
<tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Notes</th></tr>
</thead>
<tbody>
${Object.entries(properties).map(([name, property]) => {
  const notes = [
    typeof property.description === 'string' ? property.description : '',
    property.const !== undefined ? `Always \`${String(property.const)}\`.` : '',
    typeof property.maxLength === 'number' ? `At most ${property.maxLength} characters.` : '',
  ].filter(Boolean);
  return html`<tr><td><code>${name}</code></td><td>${String(property.type ?? 'object')}</td>
<td>${required.has(name) ? 'yes' : 'no'}</td><td>${markdown(notes.join(' '))}</td></tr>`;
})}
</tbody>
</table>`;
}

function resolve(document: JsonObject, schema: JsonObject): JsonObject {
  const pointer = schema.$ref;
  if (typeof pointer !== 'string') return schema;
  const name = pointer.replace('#/components/schemas/', '');
  return (document.components as Components).schemas[name] ?? {};
}

/** The document's little Markdown, block by block: paragraphs, and lists of "- " items. */
function blocks(text: string): SafeHtml[] {
  return text.split(/\n\s*\n/).map((block) => {
    if (!block.startsWith('- ')) return html`<p>${markdown(block)}</p>`;
    const items = block.split(/\n- /).map((item) => item.replace(/^- /, ''));
    return html`<ul>${items.map((item) => html`<li>${markdown(item)}</li>`)}</ul>`;
  });
}

/** Inline Markdown: `code` spans; everything else is text, lines joined. */
function markdown(text: string): SafeHtml {
  const parts = text.replace(/\s*\n\s*/g, ' ').split('`');
  return html`${parts.map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
