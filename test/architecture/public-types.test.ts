import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';
import { BUILT, declarationProgram, ENTRIES, exportsOf } from './package-entries';

interface Missing {
  name: string;
  file: string;
  usedBy: string;
}

/**
 * Every type of ours that a host meets in a contract it implements or fills in (the exported interfaces and type
 * aliases of every entry, `UserStore` first among them, and transitively the interfaces and aliases they name), with
 * those that no entry exports. Read from the compiled .d.ts, where inferred types are written out as the host's
 * compiler sees them.
 */
function unexportedTypes(): Missing[] {
  const checker = declarationProgram().getTypeChecker();
  const resolveAlias = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const ours = (declaration: ts.Declaration) => declaration.getSourceFile().fileName.startsWith(BUILT + sep);

  const exported = new Set<ts.Symbol>();
  for (const { file } of ENTRIES) {
    for (const symbol of exportsOf(file)) exported.add(resolveAlias(symbol));
  }

  // The contracts a host implements or fills in: interfaces and type aliases. A class or function it meets there must
  // be exported, but its own members are its API, not a contract's, and are not followed.
  const isContract = (symbol: ts.Symbol) =>
    (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) !== 0;
  const missing = new Map<ts.Symbol, Missing>();
  const seen = new Set<ts.Symbol>(exported);
  const queue = [...exported].filter(isContract);
  const visit = (symbol: ts.Symbol | undefined, usedBy: ts.Symbol) => {
    if (!symbol) return;
    symbol = resolveAlias(symbol);
    const declaration = symbol.declarations?.[0];
    if (!declaration || !ours(declaration) || ts.isTypeParameterDeclaration(declaration)) return;
    // A member of something (a property, an enum member) is named through its owner.
    if (!(symbol.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Value)) || symbol.flags & ts.SymbolFlags.Property) {
      return;
    }
    if (ts.isParameter(declaration) || ts.isPropertySignature(declaration)) return;
    if (!exported.has(symbol) && !missing.has(symbol)) {
      const file = declaration.getSourceFile().fileName.slice(BUILT.length + 1);
      missing.set(symbol, { name: symbol.name, file, usedBy: usedBy.name });
    }
    if (!seen.has(symbol) && isContract(symbol)) {
      seen.add(symbol);
      queue.push(symbol);
    }
  };

  while (queue.length > 0) {
    const symbol = queue.shift()!;
    for (const declaration of symbol.declarations ?? []) {
      if (!ours(declaration)) continue;
      const walk = (node: ts.Node): void => {
        // What a host cannot call or read is not part of what it must name.
        const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
        if (
          modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)
        ) {
          return;
        }
        if (ts.isTypeReferenceNode(node)) {
          visit(
            checker.getSymbolAtLocation(ts.isQualifiedName(node.typeName) ? node.typeName.right : node.typeName),
            symbol,
          );
        } else if (ts.isExpressionWithTypeArguments(node)) {
          const expression = node.expression;
          visit(
            checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expression) ? expression.name : expression),
            symbol,
          );
        } else if (ts.isTypeQueryNode(node)) {
          visit(
            checker.getSymbolAtLocation(ts.isQualifiedName(node.exprName) ? node.exprName.right : node.exprName),
            symbol,
          );
        } else if (ts.isImportTypeNode(node) && node.qualifier) {
          visit(
            checker.getSymbolAtLocation(ts.isQualifiedName(node.qualifier) ? node.qualifier.right : node.qualifier),
            symbol,
          );
        }
        ts.forEachChild(node, walk);
      };
      walk(declaration);
    }
  }
  return [...missing.values()].sort((a, b) => a.name.localeCompare(b.name));
}

describe('public types: every type a host meets in an exported signature is exported too', function () {
  this.timeout(60_000);

  it('every type named by an exported interface or type alias, transitively, has an entry', () => {
    for (const { file } of ENTRIES) expect(existsSync(join(BUILT, `${file}.d.ts`)), file).to.equal(true);
    const missing = unexportedTypes().map(({ name, file, usedBy }) => `${name} (${file}, used by ${usedBy})`);
    expect(missing).to.deep.equal([]);
  });
});
