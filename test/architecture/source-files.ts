import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// Run from build/test/architecture: the sources and the documents are read from the repository itself.
export const ROOT = resolve(__dirname, '../../..');
export const SRC = join(ROOT, 'src');

/** Every `.ts` file under `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every relative import of a file (`import`, `export ... from`, `import type`, dynamic `import()` and `require`), as
 * the source file it names (`./x` is `x.ts`, else `x/index.ts`, as the compiler resolves it).
 */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm),
  ];
  return specifiers.map((match) => sourceFileOf(resolve(dirname(file), match[1])));
}

function sourceFileOf(path: string): string {
  const candidates = [`${path}.ts`, join(path, 'index.ts'), path];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile()) ?? path;
}
