import { getMetadataArgsStorage } from 'routing-controllers';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type ControllerClass = Function;

type Storage = ReturnType<typeof getMetadataArgsStorage>;
/** The lists of routing-controllers' metadata that name a controller class. */
const LISTS = ['controllers', 'actions', 'responseHandlers', 'uses', 'useInterceptors', 'params'] as const;
type Entries = { [List in (typeof LISTS)[number]]: Storage[List] };

function ownerOf(list: (typeof LISTS)[number], entry: { target?: unknown; object?: object }): unknown {
  return list === 'params' ? entry.object?.constructor : entry.target;
}

/**
 * Takes the controllers' metadata out of routing-controllers' global storage now (at the test file's load), and puts
 * it back only while the enclosing `describe` runs. `accountGuards()` checks every controller of that storage at
 * start: a fixture whose organization guards name another template's roles (or deliberately bad ones) would make it
 * throw for every other suite of the run.
 */
export function controllersOnlyWhileRunning(...classes: ControllerClass[]): void {
  const taken = detach(classes);
  before(() => attach(taken));
  after(() => void detach(classes));
}

function detach(classes: ControllerClass[]): Entries {
  const storage = getMetadataArgsStorage();
  const wanted = new Set<unknown>(classes);
  const taken = {} as Record<string, unknown[]>;
  for (const list of LISTS) {
    const entries = storage[list] as { target?: unknown; object?: object }[];
    taken[list] = entries.filter((entry) => wanted.has(ownerOf(list, entry)));
    (storage as unknown as Record<string, unknown[]>)[list] = entries.filter(
      (entry) => !wanted.has(ownerOf(list, entry)),
    );
  }
  return taken as unknown as Entries;
}

function attach(taken: Entries): void {
  const storage = getMetadataArgsStorage() as unknown as Record<string, unknown[]>;
  for (const list of LISTS) storage[list].push(...(taken[list] as unknown[]));
}
