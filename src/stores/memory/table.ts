/** A row as a table keeps it: the value (never changed once stored) and its place in the insertion order. */
interface Entry<V> {
  readonly value: V;
  readonly seq: number;
}

/** What a table holds before the running transaction first touched each key (`undefined`: the key was absent). */
type BeforeImages<K, V> = Map<K, Entry<V> | undefined>;

/**
 * The undo log of the running transaction: for each table and key it writes, the entry as it was before its first
 * write. Committing forgets it; rolling back puts every entry back. A transaction thus costs what it writes, never
 * a copy of the whole state, however many users there are.
 */
export class Journal {
  private before: Map<Table<unknown, unknown>, BeforeImages<unknown, unknown>> | null = null;
  private seq = 0;

  get active(): boolean {
    return this.before !== null;
  }

  begin(): void {
    if (this.before) throw new Error('MemoryUserStore: a transaction is already running');
    this.before = new Map();
  }

  commit(): void {
    this.before = null;
  }

  rollback(): void {
    const before = this.before;
    this.before = null;
    for (const [table, images] of before ?? []) table.restore(images);
  }

  /** The before-images of `table` in the running transaction, if it wrote any. */
  touched<K, V>(table: Table<K, V>): BeforeImages<K, V> | undefined {
    return this.before?.get(table as Table<unknown, unknown>) as BeforeImages<K, V> | undefined;
  }

  /** Keeps the entry as it is now, the first time the running transaction writes `key`. */
  remember<K, V>(table: Table<K, V>, key: K, entry: Entry<V> | undefined): void {
    if (!this.before) throw new Error('MemoryUserStore: a write outside a transaction');
    let images = this.before.get(table as Table<unknown, unknown>) as BeforeImages<K, V> | undefined;
    if (!images) {
      images = new Map();
      this.before.set(table as Table<unknown, unknown>, images as BeforeImages<unknown, unknown>);
    }
    if (!images.has(key)) images.set(key, entry);
  }

  nextSeq(): number {
    return ++this.seq;
  }
}

/** The reads and writes the aggregates make on a table; `committed` views refuse the writes. */
export interface TableAccess<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  /** Rows in insertion order (a row keeps its place when it changes), as a `Map` iterates. */
  entries(): Iterable<[K, V]>;
  values(): Iterable<V>;
  /** The rows of a user, in a table whose rows hang off one (`TableOptions.ownerOf`). */
  ownedBy(userId: string): [K, V][];
  /** The row whose unique index `index` holds `indexKey`. */
  lookup(index: string, indexKey: string): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): boolean;
  /** Deletes every row of the user (see `ownedBy`); how many went. */
  deleteOwnedBy(userId: string): number;
}

export interface TableOptions<K, V> {
  /** Named in the errors a broken constraint throws. */
  name: string;
  /**
   * The user a row hangs off: tables with one form the registry of what goes with a user (`MemoryState`). Undefined
   * for a row of such a table that hangs off no user (a passkey sign-in's challenge, whose account is not yet known).
   */
  ownerOf?: (value: V, key: K) => string | undefined;
  /** Unique indexes: name -> the row's key in it, undefined for a row outside it (a partial index). */
  unique?: Record<string, (value: V) => string | undefined>;
}

/**
 * A map whose writes are journaled, with the indexes a database would keep for it: unique ones (a clash throws, as a
 * constraint would, and so undoes the transaction) and one by owner. Values are frozen when stored: a change is a new
 * value, so a before-image can never be changed behind the journal's back.
 */
export class Table<K, V> implements TableAccess<K, V> {
  private readonly rows = new Map<K, Entry<V>>();
  private readonly owned = new Map<string, Set<K>>();
  private readonly indexes: { name: string; keyOf: (value: V) => string | undefined; keys: Map<string, K> }[];
  /** The same table as the reads outside a transaction see it (see `CommittedView`). */
  readonly committed: TableAccess<K, V>;

  constructor(
    private readonly journal: Journal,
    private readonly options: TableOptions<K, V>,
  ) {
    this.indexes = Object.entries(options.unique ?? {}).map(([name, keyOf]) => ({ name, keyOf, keys: new Map() }));
    this.committed = new CommittedView(this);
  }

  get isUserOwned(): boolean {
    return this.options.ownerOf !== undefined;
  }

  get(key: K): V | undefined {
    return this.rows.get(key)?.value;
  }

  has(key: K): boolean {
    return this.rows.has(key);
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.rows) yield [key, entry.value];
  }

  *values(): IterableIterator<V> {
    for (const entry of this.rows.values()) yield entry.value;
  }

  ownedBy(userId: string): [K, V][] {
    return [...(this.owned.get(userId) ?? [])].map((key) => [key, this.rows.get(key)!.value]);
  }

  lookup(index: string, indexKey: string): V | undefined {
    const key = this.index(index).keys.get(indexKey);
    return key === undefined ? undefined : this.rows.get(key)?.value;
  }

  set(key: K, value: V): void {
    const previous = this.rows.get(key);
    for (const { name, keyOf, keys } of this.indexes) {
      const indexKey = keyOf(value);
      const holder = indexKey === undefined ? undefined : keys.get(indexKey);
      if (holder !== undefined && holder !== key) throw new Error(`MemoryUserStore: duplicate ${name}`);
    }
    this.journal.remember(this, key, previous);
    this.write(key, { value: Object.freeze(value), seq: previous?.seq ?? this.journal.nextSeq() });
  }

  delete(key: K): boolean {
    const previous = this.rows.get(key);
    if (!previous) return false;
    this.journal.remember(this, key, previous);
    this.erase(key);
    return true;
  }

  /** Deletes every row of the user; how many went. */
  deleteOwnedBy(userId: string): number {
    const keys = [...(this.owned.get(userId) ?? [])];
    for (const key of keys) this.delete(key);
    return keys.length;
  }

  /**
   * Changes a committed row at once, whatever the running transaction does: `change` is applied to the row as
   * committed and, when the transaction has written it, to its version too, so the change survives a commit and a
   * rollback alike. For a field no transaction writes (a session's `lastSeenAt`): it then commutes with the
   * transaction, and needs no wait for it. No-op when no row is committed under `key`.
   */
  changeCommitted(key: K, change: (value: V) => V): void {
    const images = this.journal.touched(this);
    if (images?.has(key)) {
      const before = images.get(key);
      if (!before) return;
      images.set(key, { value: Object.freeze(change(before.value)), seq: before.seq });
    }
    const current = this.rows.get(key);
    if (current) this.write(key, { value: Object.freeze(change(current.value)), seq: current.seq });
  }

  /** Puts the before-images back (the journal's rollback), then restores the insertion order if it moved. */
  restore(images: BeforeImages<K, V>): void {
    let reorder = false;
    for (const [key, before] of images) {
      const current = this.rows.get(key);
      if (!before) {
        if (current) this.erase(key);
        continue;
      }
      if (current?.seq !== before.seq) reorder = true;
      this.write(key, before);
    }
    if (reorder) {
      const ordered = [...this.rows].sort(([, a], [, b]) => a.seq - b.seq);
      this.rows.clear();
      for (const [key, entry] of ordered) this.rows.set(key, entry);
    }
  }

  /** The entry the reads outside a transaction see: the before-image of a key the transaction wrote. */
  committedEntry(key: K): Entry<V> | undefined {
    const images = this.journal.touched(this);
    return images?.has(key) ? images.get(key) : this.rows.get(key);
  }

  *committedEntries(): IterableIterator<[K, V]> {
    const images = this.journal.touched(this);
    if (!images?.size) {
      yield* this.entries();
      return;
    }
    // Untouched rows are in insertion order already; the before-images join them at their places.
    const before = [...images].filter((image): image is [K, Entry<V>] => image[1] !== undefined);
    before.sort(([, a], [, b]) => a.seq - b.seq);
    let next = 0;
    for (const [key, entry] of this.rows) {
      if (images.has(key)) continue;
      for (; next < before.length && before[next][1].seq < entry.seq; next++)
        yield [before[next][0], before[next][1].value];
      yield [key, entry.value];
    }
    for (; next < before.length; next++) yield [before[next][0], before[next][1].value];
  }

  committedOwnedBy(userId: string): [K, V][] {
    const images = this.journal.touched(this);
    const rows = this.ownedBy(userId).filter(([key]) => !images?.has(key));
    for (const [key, before] of images ?? []) {
      if (before && this.options.ownerOf!(before.value, key) === userId) rows.push([key, before.value]);
    }
    return rows;
  }

  committedLookup(index: string, indexKey: string): V | undefined {
    const { keyOf, keys } = this.index(index);
    const images = this.journal.touched(this);
    const key = keys.get(indexKey);
    if (key !== undefined && !images?.has(key)) return this.rows.get(key)?.value;
    for (const before of images?.values() ?? []) {
      if (before && keyOf(before.value) === indexKey) return before.value;
    }
    return undefined;
  }

  private index(name: string): Table<K, V>['indexes'][number] {
    const index = this.indexes.find((candidate) => candidate.name === name);
    if (!index) throw new Error(`MemoryUserStore: no index ${name} on ${this.options.name}`);
    return index;
  }

  /** Stores the entry and keeps the indexes; no journal (the callers journal, or are the rollback). */
  private write(key: K, entry: Entry<V>): void {
    this.unindex(key);
    this.rows.set(key, entry);
    for (const { keyOf, keys } of this.indexes) {
      const indexKey = keyOf(entry.value);
      if (indexKey !== undefined) keys.set(indexKey, key);
    }
    const owner = this.options.ownerOf?.(entry.value, key);
    if (owner !== undefined) {
      const keys = this.owned.get(owner) ?? new Set<K>();
      keys.add(key);
      this.owned.set(owner, keys);
    }
  }

  private erase(key: K): void {
    this.unindex(key);
    this.rows.delete(key);
  }

  /** Drops the index entries of the row under `key`, those that still name it (a rollback may have moved them). */
  private unindex(key: K): void {
    const current = this.rows.get(key);
    if (!current) return;
    for (const { keyOf, keys } of this.indexes) {
      const indexKey = keyOf(current.value);
      if (indexKey !== undefined && keys.get(indexKey) === key) keys.delete(indexKey);
    }
    const owner = this.options.ownerOf?.(current.value, key);
    const keys = owner === undefined ? undefined : this.owned.get(owner);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.owned.delete(owner!);
  }
}

/**
 * A table as it was committed: while a transaction runs, the keys it wrote read as their before-images, so a read
 * outside a transaction never sees a write that may still be rolled back. Writing through it throws.
 */
class CommittedView<K, V> implements TableAccess<K, V> {
  constructor(private readonly table: Table<K, V>) {}

  get(key: K): V | undefined {
    return this.table.committedEntry(key)?.value;
  }

  has(key: K): boolean {
    return this.table.committedEntry(key) !== undefined;
  }

  entries(): Iterable<[K, V]> {
    return this.table.committedEntries();
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.table.committedEntries()) yield value;
  }

  ownedBy(userId: string): [K, V][] {
    return this.table.committedOwnedBy(userId);
  }

  lookup(index: string, indexKey: string): V | undefined {
    return this.table.committedLookup(index, indexKey);
  }

  set(): void {
    throw new Error('MemoryUserStore: a write outside a transaction');
  }

  delete(): boolean {
    throw new Error('MemoryUserStore: a write outside a transaction');
  }

  deleteOwnedBy(): number {
    throw new Error('MemoryUserStore: a write outside a transaction');
  }
}
