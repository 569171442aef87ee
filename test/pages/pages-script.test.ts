import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Script } from 'node:vm';
import ts from 'typescript';
import { PAGES_SCRIPT, SCRIPT_PARTS } from '../../src/pages/assets/pages-script';
import { runPages } from '../../src/pages/assets/script/run-pages';

// Run from build/test/pages: the modules are read from the repository itself.
const SCRIPT_DIR = resolve(__dirname, '../../../src/pages/assets/script');

/** The browser globals a module of the script may declare; anything else it needs comes through its arguments. */
const BROWSER_GLOBALS = new Set([
  'document',
  'location',
  'history',
  'sessionStorage',
  'btoa',
  // The clipboard (the new API key's Copy button), and `pagehide`, which forgets that key.
  'navigator',
  'window',
  // Read with `typeof` first: the WebAuthn library (assets/webauthn.js) and WebAuthn itself may be absent.
  'SimpleWebAuthnBrowser',
  'PublicKeyCredential',
]);

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind);

/**
 * What of a module of the script is not types or declared browser globals: its one exported function, which the
 * served file carries as source text, without the rest of its module. Anything else is a mistake, listed.
 */
function runtimeOf(file: string): { functions: string[]; mistakes: string[] } {
  const source = ts.createSourceFile(file, readFileSync(join(SCRIPT_DIR, file), 'utf8'), ts.ScriptTarget.ES2022);
  const functions: string[] = [];
  const mistakes: string[] = [];
  for (const statement of source.statements) {
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
    const where = `${file}:${line}`;
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) continue;
    if (ts.isImportDeclaration(statement)) {
      if (!statement.importClause?.isTypeOnly) mistakes.push(`${where}: an import that is not \`import type\``);
      continue;
    }
    if (ts.isVariableStatement(statement) && hasModifier(statement, ts.SyntaxKind.DeclareKeyword)) {
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(source);
        if (!BROWSER_GLOBALS.has(name)) mistakes.push(`${where}: declares ${name}, not a browser global of the list`);
      }
      continue;
    }
    if (ts.isFunctionDeclaration(statement) && hasModifier(statement, ts.SyntaxKind.ExportKeyword) && statement.body) {
      functions.push(statement.name?.text ?? '');
      continue;
    }
    mistakes.push(`${where}: a statement outside the module's exported function`);
  }
  if (functions.length > 1) mistakes.push(`${file}: ${functions.length} functions; one a module`);
  return { functions, mistakes };
}

describe('pages: the script and its modules (src/pages/assets/script/)', () => {
  const files = readdirSync(SCRIPT_DIR).filter((name) => name.endsWith('.ts'));

  it('each module holds types, declared browser globals and at most one exported function, nothing else', () => {
    expect(files.length).to.be.greaterThan(10);
    const mistakes = files.flatMap((file) => runtimeOf(file).mistakes);
    expect(mistakes).to.deep.equal([]);
  });

  it('the served file carries every function of the modules, each a named function declaration', () => {
    const functions = files.flatMap((file) => runtimeOf(file).functions).sort();
    expect(functions).to.deep.equal([...Object.keys(SCRIPT_PARTS), 'runPages'].sort());
    for (const [name, part] of Object.entries({ ...SCRIPT_PARTS, runPages })) {
      // A method or an arrow would not read back as `name: function name(...) {...}`.
      expect(part.toString(), name).to.match(new RegExp(`^(async )?function ${name}\\(`));
      expect(PAGES_SCRIPT).to.include(part.toString());
    }
    expect(() => new Script(PAGES_SCRIPT)).to.not.throw();
  });
});
