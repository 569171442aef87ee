import { join, resolve } from 'node:path';
import ts from 'typescript';

// Run from build/test/architecture: the package is the repository itself, its entries the compiled build/src.
export const ROOT = resolve(__dirname, '../../..');
export const BUILT = join(ROOT, 'build/src');

/**
 * The package's entries, each a file at the root of `src/`: the whole of what package.json `exports` may offer
 * (besides `./package.json`). public-names.test.ts checks `exports` against this list.
 */
export const ENTRIES = [
  { specifier: 'gatehouse', file: 'index' },
  { specifier: 'gatehouse/express', file: 'express' },
  { specifier: 'gatehouse/sqlite', file: 'sqlite' },
  { specifier: 'gatehouse/postgres', file: 'postgres' },
  { specifier: 'gatehouse/redis', file: 'redis' },
  { specifier: 'gatehouse/testing', file: 'testing' },
] as const;

export type EntryFile = (typeof ENTRIES)[number]['file'];

let program: ts.Program | undefined;

/** One compiler program over the entries' compiled declarations, read as a host's compiler reads them. */
export function declarationProgram(): ts.Program {
  program ??= ts.createProgram(
    ENTRIES.map(({ file }) => join(BUILT, `${file}.d.ts`)),
    { strict: true, skipLibCheck: true, types: ['node'], module: ts.ModuleKind.CommonJS, noEmit: true },
  );
  return program;
}

/** The symbols an entry's declarations export (aliases as written, not resolved). */
export function exportsOf(file: EntryFile): ts.Symbol[] {
  const current = declarationProgram();
  const checker = current.getTypeChecker();
  const source = current.getSourceFile(join(BUILT, `${file}.d.ts`))!;
  return checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
}
