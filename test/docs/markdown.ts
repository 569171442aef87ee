import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's root (tests run from build/test/docs). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

export function readDoc(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

/** Every Markdown file of the documentation, relative to the root: the top-level pages and docs/, recursively. */
export function documentationFiles(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.posix.join(folder, entry.name);
      if (entry.isDirectory()) return walk(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return ['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md', 'CHANGELOG.md', ...walk('docs')];
}

/**
 * The rows of the first table under `heading` (a line `## heading`, or `# heading`), as arrays of trimmed cells,
 * header and separator excluded. Throws when the heading or its table is missing, so a renamed section fails loudly.
 */
export function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,4} /.test(line) && line.replace(/^#+ /, '').trim() === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const rows: string[][] = [];
  let index = lines.findIndex((line, i) => i > start && line.startsWith('|'));
  if (index < 0 || lines.slice(start + 1, index).some((line) => /^#{1,4} /.test(line))) {
    throw new Error(`no table under "${heading}"`);
  }
  for (; index < lines.length && lines[index].startsWith('|'); index++) rows.push(cells(lines[index]));
  return rows.slice(2);
}

/** The cells of a table row; a `|` inside backticks or escaped as `\|` belongs to its cell. */
function cells(row: string): string[] {
  const result: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 1; i < row.length; i++) {
    const char = row[i];
    if (char === '`') inCode = !inCode;
    if (char === '\\' && row[i + 1] === '|') {
      current += '|';
      i++;
    } else if (char === '|' && !inCode) {
      result.push(current.trim());
      current = '';
    } else current += char;
  }
  return result;
}

/** The backticked words of a cell: "`a` / `b`" gives ["a", "b"]. */
export function codesIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

/** The fenced code blocks of a language, with the heading they sit under. */
export function codeBlocks(markdown: string, language: string): { heading: string; code: string }[] {
  const blocks: { heading: string; code: string }[] = [];
  let heading = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,4} /.test(lines[i])) heading = lines[i].replace(/^#+ /, '').trim();
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    if (fence[2] === language) {
      blocks.push({
        heading,
        code: lines
          .slice(i + 1, end)
          .map((line) => line.slice(fence[1].length))
          .join('\n'),
      });
    }
    i = end;
  }
  return blocks;
}
