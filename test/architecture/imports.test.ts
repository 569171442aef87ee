import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importsOf, ROOT, SRC, sourceFiles } from './source-files';

const ROOT_FOLDER = '(root)';

/** The folder of `src/` a file belongs to; files directly in `src/` belong to `(root)`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : ROOT_FOLDER;
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

/**
 * The file → imported files graph of `src/`. An `import type` is an edge like any other: the compiler erases it, so it
 * orders no loading, but it still ties the two files together (neither can be read, moved into a slice or replaced
 * without the other), and one edit turns it into a value import.
 */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    graph.set(relative(ROOT, file), new Set(importsOf(file).map((target) => relative(ROOT, target))));
  }
  return graph;
}

/**
 * Known file-level loops, each as the import that closes it (importer, imported); the graph is checked without these
 * edges, and each must still close a loop, so that the list only shrinks.
 */
const ALLOWED_FILE_LOOPS: [string, string][] = [];

/** Every loop of the graph, one per strongly connected set of files (Tarjan), shown as its shortest round trip. */
function fileLoops(graph: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(next)!));
      } else if (onStack.has(next)) {
        lowest.set(file, Math.min(lowest.get(file)!, index.get(next)!));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) components.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return components.map((component) => {
    const start = component[0];
    return [...(shortestPath(graph, start, start, new Set(component)) ?? [start])].join(' -> ');
  });
}

/** The shortest import path from `from` to `to` (a round trip when they are the same file), within `within`. */
function shortestPath(
  graph: Map<string, Set<string>>,
  from: string,
  to: string,
  within?: Set<string>,
): string[] | undefined {
  const cameFrom = new Map<string, string>();
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (within && !within.has(next)) continue;
      if (next === to) {
        const path = [to];
        for (let step: string | undefined = file; step !== undefined; step = cameFrom.get(step)) {
          path.unshift(step);
          if (step === from) break;
        }
        return path;
      }
      if (next === from || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

/** The most lines a file of `src/` may have (docs/architecture.md, "Files"). */
const MAX_LINES = 600;

/** Files allowed over MAX_LINES: none (the last were split under issue 38), and none may join. */
const OVERSIZED_FILES: string[] = [];

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
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

describe('architecture: the files of src/ (docs/architecture.md, "Files")', () => {
  const graph = fileGraph();

  it('no file imports itself back, directly or around a loop (import type included)', () => {
    const allowedEdgesRemoved = new Map(
      [...graph].map(([file, targets]) => [
        file,
        new Set([...targets].filter((target) => !ALLOWED_FILE_LOOPS.some(([a, b]) => a === file && b === target))),
      ]),
    );
    expect(fileLoops(allowedEdgesRemoved)).to.deep.equal([]);
  });

  it('each allowed loop still exists (else remove it from ALLOWED_FILE_LOOPS)', () => {
    const stale = ALLOWED_FILE_LOOPS.filter(
      ([importer, imported]) => !graph.get(importer)?.has(imported) || !shortestPath(graph, imported, importer),
    );
    expect(stale.map((edge) => edge.join(' -> '))).to.deep.equal([]);
  });

  it(`no file is over ${MAX_LINES} lines, but those being split`, () => {
    const over = [...graph.keys()]
      .filter((file) => !OVERSIZED_FILES.includes(file) && lineCount(join(ROOT, file)) > MAX_LINES)
      .map((file) => `${file} (${lineCount(join(ROOT, file))} lines)`);
    expect(over).to.deep.equal([]);
  });

  it(`each file allowed over ${MAX_LINES} lines still is (else remove it from OVERSIZED_FILES)`, () => {
    const stale = OVERSIZED_FILES.filter((file) => !graph.has(file) || lineCount(join(ROOT, file)) <= MAX_LINES);
    expect(stale).to.deep.equal([]);
  });
});
