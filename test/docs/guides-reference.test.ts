import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { getMetadataArgsStorage } from 'routing-controllers';
import ts from 'typescript';
import { ACCOUNT_CONTROLLERS } from '../../src/app/account-controllers';
import { DEFAULT_LIMITS, DEFAULT_LOGIN_BACKOFF, LIMIT_NAMES } from '../../src/limits/rate-limit-options';
import { codeBlocks, codesIn, documentationFiles, readDoc, ROOT, tableUnder } from './markdown';

describe('docs: the routes and rate-limit tables against the code', () => {
  it('docs/reference/routes.md lists exactly the account routes', () => {
    const mounted = getMetadataArgsStorage()
      .actions.filter((action) => ACCOUNT_CONTROLLERS.includes(action.target as new () => object))
      .map((action) => `${action.type.toUpperCase()} ${String(action.route)}`);
    const documented = tableUnder(readDoc('docs/reference/routes.md'), 'Routes').map(
      ([method, route]) => `${method} ${codesIn(route)[0]}`,
    );
    expect(documented.sort()).to.deep.equal(mounted.sort());
  });

  it('docs/guides/rate-limits.md gives every budget with its default', () => {
    const rows = tableUnder(readDoc('docs/guides/rate-limits.md'), 'Rate limits');
    const per: Record<string, number> = { minute: 60, hour: 3600 };
    const documented = new Map<string, { points: number; duration: number }>();
    for (const [name, , defaults] of rows) {
      const match = /^(\d+) an? (minute|hour)\b/.exec(defaults);
      if (match) documented.set(codesIn(name)[0], { points: Number(match[1]), duration: per[match[2]] });
    }
    expect([...documented.keys()].sort()).to.deep.equal([...LIMIT_NAMES].sort());
    for (const name of LIMIT_NAMES) expect(documented.get(name), name).to.deep.equal(DEFAULT_LIMITS[name]);
    const backoff = rows.find(([name]) => name === '`login.backoff`');
    const { freeFailures, initialDelay, maxDelay } = DEFAULT_LOGIN_BACKOFF;
    expect(codesIn(backoff![2])).to.deep.equal([`${freeFailures}/${initialDelay}s/${maxDelay / 60}m`]);
  });
});

describe('docs: links and imports', () => {
  const files = documentationFiles();

  it('every relative link points at a file that exists, and at a heading or anchor of it', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const match of readDoc(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1];
        if (/^[a-z]+:/.test(target)) continue;
        const [pathPart, anchor] = target.split('#');
        const resolved = pathPart ? path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart)) : file;
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('the README, the guides, the reference and the security pages point at no source path the package lacks', () => {
    const hostFacing = files.filter(
      (file) => file === 'README.md' || /^docs\/(guides|reference|security)\//.test(file),
    );
    const offending = hostFacing.filter((file) => /(^|[\s`(])\.{0,2}\/?src\/\w/m.test(readDoc(file)));
    expect(offending).to.deep.equal([]);
  });

  it('every name a code example imports from gatehouse is exported by that entry', function () {
    this.timeout(60_000);
    const missing: string[] = [];
    for (const file of files) {
      for (const { code } of codeBlocks(readDoc(file), 'ts')) {
        for (const match of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(gatehouse(?:\/[\w-]+)?)'/g)) {
          const entry = match[2];
          const exported = exportsOf(entry);
          if (exported === null) {
            missing.push(`${file}: no entry ${entry}`);
            continue;
          }
          for (const name of match[1].split(',').map((part) => part.replace(/^\s*type\s+/, '').trim())) {
            if (name && !exported.has(name)) missing.push(`${file}: ${name} from ${entry}`);
          }
        }
      }
    }
    expect(missing).to.deep.equal([]);
  });
});

/** GitHub's anchors of a Markdown file: its headings' slugs and its explicit `<a id>`s. */
function anchorsOf(file: string): Set<string> {
  const text = readDoc(file);
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]));
  for (const match of text.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      match[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}

const entryExports = new Map<string, Set<string> | null>();

/** The names (values and types) an entry of the package exports, read from its declarations; null if no such entry. */
function exportsOf(entry: string): Set<string> | null {
  if (entryExports.has(entry)) return entryExports.get(entry)!;
  const subpath = entry === 'gatehouse' ? '.' : `./${entry.slice('gatehouse/'.length)}`;
  const manifest = JSON.parse(readDoc('package.json')) as { exports: Record<string, { types?: string }> };
  const types = manifest.exports[subpath]?.types;
  let names: Set<string> | null = null;
  if (types && existsSync(path.join(ROOT, types))) {
    const file = path.join(ROOT, types);
    const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    names = new Set(checker.getExportsOfModule(module).map((symbol) => symbol.getName()));
  }
  entryExports.set(entry, names);
  return names;
}
