import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { BUILT, ENTRIES, exportsOf, ROOT, type EntryFile } from './package-entries';

// What each entry exports, by name, is checked in (public-names.json), so that any change to the public surface is a
// diff someone meant: a name added, removed, or turned from a value into a type fails here until that file says the
// same. `UPDATE_PUBLIC_NAMES=1` with this test rewrites the file from the build; read its diff before committing it.
const LISTED_FILE = join(ROOT, 'test/architecture/public-names.json');

/** An entry's names: `values` exist at run time (classes, functions, constants), `types` only for the compiler. */
interface PublicNames {
  values: string[];
  types: string[];
}

async function publicNamesOf(file: EntryFile): Promise<PublicNames> {
  const module = (await import(join(BUILT, `${file}.js`))) as Record<string, unknown>;
  const values = Object.keys(module).sort();
  const runtime = new Set(values);
  const types = exportsOf(file)
    .map((symbol) => symbol.name)
    .filter((name) => !runtime.has(name))
    .sort();
  return { values, types };
}

function changes(listed: PublicNames, actual: PublicNames): string {
  const differences = (['values', 'types'] as const).flatMap((kind) => {
    const added = actual[kind].filter((name) => !listed[kind].includes(name));
    const removed = listed[kind].filter((name) => !actual[kind].includes(name));
    return [
      ...(added.length > 0 ? [`${kind} added: ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`${kind} removed: ${removed.join(', ')}`] : []),
    ];
  });
  return `${differences.join('; ')} (${LISTED_FILE.slice(ROOT.length + 1)}; UPDATE_PUBLIC_NAMES=1 rewrites it)`;
}

/** The `exports` of package.json that the entries make: each its compiled file and declarations, and package.json. */
function expectedExports(): Record<string, unknown> {
  const entries = ENTRIES.map(({ specifier, file }) => [
    specifier.replace(/^gatehouse/, '.'),
    { types: `./build/src/${file}.d.ts`, default: `./build/src/${file}.js` },
  ]);
  return { ...Object.fromEntries(entries), './package.json': './package.json' };
}

describe('the public surface: package.json exports only the entries, and each entry the names listed for it', function () {
  this.timeout(60_000);
  const listed = JSON.parse(readFileSync(LISTED_FILE, 'utf8')) as Record<string, PublicNames>;

  before(async () => {
    if (process.env.UPDATE_PUBLIC_NAMES !== '1') return;
    const names: Record<string, PublicNames> = {};
    for (const { specifier, file } of ENTRIES) names[specifier] = await publicNamesOf(file);
    const options = await resolveConfig(LISTED_FILE);
    writeFileSync(LISTED_FILE, await format(JSON.stringify(names), { ...options, parser: 'json' }));
    Object.assign(listed, names);
  });

  it('package.json exports the entries and ./package.json, no path inside the package', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.exports).to.deep.equal(expectedExports());
    // TypeScript's node10 resolution (module: commonjs) ignores `exports`: typesVersions names the same subpaths.
    const subpaths = ENTRIES.filter(({ specifier }) => specifier !== 'gatehouse').map(({ specifier, file }) => [
      specifier.slice('gatehouse/'.length),
      [`build/src/${file}.d.ts`],
    ]);
    expect(manifest.typesVersions).to.deep.equal({ '*': Object.fromEntries(subpaths) });
    expect([manifest.main, manifest.types]).to.deep.equal(['build/src/index.js', 'build/src/index.d.ts']);
  });

  it('public-names.json lists exactly the entries', () => {
    expect(Object.keys(listed)).to.deep.equal(ENTRIES.map(({ specifier }) => specifier));
  });

  for (const { specifier, file } of ENTRIES) {
    it(`${specifier} exports the names listed for it`, async () => {
      const actual = await publicNamesOf(file);
      const expected = listed[specifier] ?? { values: [], types: [] };
      expect(actual, changes(expected, actual)).to.deep.equal(expected);
    });
  }
});
