import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Run from build/test/architecture: the sources and the document are read from the repository itself.
const ROOT = resolve(__dirname, '../../..');
const SRC = join(ROOT, 'src');
const ROOT_FOLDER = '(root)';

/** The folder of `src/` a file belongs to; files directly in `src/` belong to `(root)`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : ROOT_FOLDER;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of a file (`import`, `export ... from`, `import type`, dynamic `import()` and `require`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm),
  ];
  return specifiers.map((match) => resolve(dirname(file), match[1]));
}

/** The folder → allowed folders table of docs/architecture.md ("may import" column). */
function allowedEdges(): Map<string, Set<string>> {
  const document = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const table = new Map<string, Set<string>>();
  for (const line of document.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length !== 5) continue;
    const folder = /^`([^`]+)`$/.exec(cells[1])?.[1];
    if (!folder) continue;
    const allowed = cells[3] === 'any folder' ? ['*'] : [...cells[3].matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    table.set(folder, new Set(allowed));
  }
  return table;
}

function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, relative(ROOT, file));
      graph.set(from, edges);
    }
  }
  return graph;
}

describe('architecture: the import graph of src/ (docs/architecture.md)', () => {
  const graph = folderGraph();
  const allowed = allowedEdges();

  it('the document names every folder of src/, and the table parses', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(allowed.size).to.be.greaterThan(10);
    expect([...allowed.keys()].sort()).to.deep.equal([...folders, ROOT_FOLDER].sort());
  });

  it('every import between folders is one the document allows', () => {
    const forbidden: string[] = [];
    for (const [from, edges] of graph) {
      const may = allowed.get(from) ?? new Set<string>();
      for (const [to, example] of edges) {
        if (!may.has('*') && !may.has(to)) forbidden.push(`${from} -> ${to} (e.g. ${example})`);
      }
    }
    expect(forbidden).to.deep.equal([]);
  });

  it('no two folders import each other, directly or around a cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (folder: string, path: string[]): void => {
      if (state.get(folder) === 'done') return;
      if (state.get(folder) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(folder)), folder].join(' -> '));
        return;
      }
      state.set(folder, 'visiting');
      for (const next of graph.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
      state.set(folder, 'done');
    };
    for (const folder of graph.keys()) visit(folder, []);
    expect(cycles).to.deep.equal([]);
  });

  it('errors/ imports nothing of the project, and the core only errors/', () => {
    expect([...(graph.get('errors')?.keys() ?? [])]).to.deep.equal([]);
    expect([...(graph.get('services')?.keys() ?? [])]).to.deep.equal(['errors']);
  });
});
