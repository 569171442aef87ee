import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { getMetadataArgsStorage } from 'routing-controllers';
import { ACCOUNT_CONTROLLERS } from '../../src/app/account-controllers';
import { FEATURES, featurePages, type Feature } from '../../src/app/features';
import { AUDIT_EVENT_TYPES } from '../../src/services/audit-event';
import { CREDENTIAL_KINDS } from '../../src/services/credential-kinds';
import { KINDS_OF_FEATURES } from '../../src/services/kinds-of-features';
import { OUTBOX_KINDS } from '../../src/services/outbox-message';
import { migrations } from '../../src/stores/sql/migrate';
import { USER_OWNED_TABLES } from '../../src/stores/sql/records/user-owned-tables';
import { importsOf, SRC, sourceFiles } from './source-files';

/**
 * The sub-folders of the layers that are shared code, not a feature's slice (docs/architecture.md, "Features as
 * slices"). Any other sub-folder where a slice may sit must be named for a feature of `FEATURES`.
 */
const SHARED_SUBFOLDERS = ['controllers/dto', 'email/templates', 'pages/assets', 'pages/views', 'services/store'];

const NAMES = new Set(FEATURES.map((feature) => feature.name));

/** Where a slice may sit, as the folder that holds it: a layer folder, the SQL records, the memory store. */
function sliceParent(parts: string[]): number | undefined {
  if (parts[0] !== 'stores') return 1;
  if (parts[1] === 'sql' && parts[2] === 'records') return 3;
  if (parts[1] === 'memory') return 2;
  return undefined;
}

/** The feature whose slice folder holds a file of `src/`, if any. */
function featureOf(file: string): string | undefined {
  const parts = relative(SRC, file).split(sep);
  const at = sliceParent(parts);
  if (at === undefined || parts.length <= at + 1) return undefined;
  return NAMES.has(parts[at]) ? parts[at] : undefined;
}

/** Each listed thing with the features that claim it; `known` adds the things no feature claims. */
function owners(pick: (feature: Feature) => readonly unknown[], known: readonly unknown[]): Map<unknown, string[]> {
  const claimed = new Map<unknown, string[]>(known.map((thing) => [thing, []]));
  for (const feature of FEATURES) {
    for (const thing of pick(feature)) claimed.set(thing, [...(claimed.get(thing) ?? []), feature.name]);
  }
  return claimed;
}

/** What is not claimed by exactly one feature, or is claimed but unknown, with its claimants. */
function misplaced(pick: (feature: Feature) => readonly unknown[], known: readonly unknown[]): string[] {
  return [...owners(pick, known)]
    .filter(([thing, claimants]) => claimants.length !== 1 || !known.includes(thing))
    .map(([thing, claimants]) => `${nameOf(thing)}: ${claimants.join(', ') || 'no feature'}`);
}

function nameOf(thing: unknown): string {
  return typeof thing === 'function' ? thing.name : String(thing);
}

/** Every controller class the modules of `src/controllers/` define (as routing-controllers registered them). */
function controllerClasses(): unknown[] {
  const exported = sourceFiles(join(SRC, 'controllers')).flatMap((file) => {
    const built = join(__dirname, '../../src', relative(SRC, file)).replace(/\.ts$/, '.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every module of the folder, found by listing it
    return Object.values(require(built) as Record<string, unknown>);
  });
  const registered = new Set<unknown>(getMetadataArgsStorage().controllers.map((controller) => controller.target));
  return [...new Set(exported.filter((value) => registered.has(value)))];
}

describe('architecture: features as slices with one registration list (src/app/features.ts)', () => {
  it('names each feature once, in lower-case words joined by dashes', () => {
    const names = FEATURES.map((feature) => feature.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const name of names) expect(name).to.match(/^[a-z]+(-[a-z]+)*$/);
  });

  it('gives every controller of src/controllers/ to exactly one feature, and mounts those', () => {
    expect(misplaced((feature) => feature.controllers, controllerClasses())).to.deep.equal([]);
    expect(ACCOUNT_CONTROLLERS).to.deep.equal(FEATURES.flatMap((feature) => feature.controllers));
  });

  it('gives every hosted page to exactly one feature', () => {
    const paths = FEATURES.flatMap((feature) => Object.keys(feature.pages));
    expect(misplaced((feature) => Object.keys(feature.pages), paths)).to.deep.equal([]);
    expect(Object.keys(featurePages())).to.have.members(paths);
    expect(() => featurePages([...FEATURES, FEATURES[0]])).to.throw('Two features serve the page');
  });

  it('registers the very kinds the core gathers from the slices, feature by feature', () => {
    expect(FEATURES.length).to.equal(KINDS_OF_FEATURES.length);
    FEATURES.forEach((feature, at) => expect(feature.kinds, feature.name).to.equal(KINDS_OF_FEATURES[at]));
  });

  it('gives every credential kind, email kind, audit kind, user-owned table and migration to exactly one feature', () => {
    const credentials = (feature: Feature) => Object.keys(feature.kinds.credentials);
    const emails = (feature: Feature) => [...feature.kinds.links, ...feature.kinds.notices];
    expect(misplaced(credentials, Object.keys(CREDENTIAL_KINDS))).to.deep.equal([]);
    expect(misplaced(emails, OUTBOX_KINDS)).to.deep.equal([]);
    expect(misplaced((feature) => feature.kinds.audit, AUDIT_EVENT_TYPES)).to.deep.equal([]);
    expect(misplaced((feature) => feature.tables, Object.values(USER_OWNED_TABLES).flat())).to.deep.equal([]);
    expect(misplaced((feature) => feature.migrations, Object.keys(migrations))).to.deep.equal([]);
  });

  it('finds a slice folder only under a feature’s name, beside the shared sub-folders of the layers', () => {
    const unknown: string[] = [];
    const visit = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (!statSync(path).isDirectory()) continue;
        const parts = relative(SRC, path).split(sep);
        const at = sliceParent(parts);
        const folder = parts.join('/');
        if (at === parts.length - 1 && !NAMES.has(name) && !SHARED_SUBFOLDERS.includes(folder)) unknown.push(folder);
        visit(path);
      }
    };
    visit(SRC);
    expect(unknown).to.deep.equal([]);
  });

  it('knows a slice folder by its place: under a layer, the SQL records or the memory store, named for a feature', () => {
    const at = (...parts: string[]) => featureOf(join(SRC, ...parts, 'x.ts'));
    expect(at('services', 'email-changes')).to.equal('email-changes');
    expect(at('stores', 'sql', 'records', 'email-changes')).to.equal('email-changes');
    expect(at('stores', 'memory', 'email-changes', 'deeper')).to.equal('email-changes');
    expect(at('services')).to.equal(undefined);
    expect(at('services', 'store')).to.equal(undefined);
    expect(at('stores', 'conformance', 'account')).to.equal(undefined);
  });

  it('never lets a feature’s folder import another feature’s folder', () => {
    const crossings: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = featureOf(file);
      if (!from) continue;
      for (const target of importsOf(file)) {
        const to = featureOf(target);
        if (to && to !== from) crossings.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(crossings).to.deep.equal([]);
  });
});
