import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserStore } from '../../src/services/user-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { createTestDatabase } from './postgres-database';
import { requireService, type ServiceName } from './services';

export interface OpenedTestStore {
  store: UserStore;
  /** Closes the store and removes what it kept (the file, the database). */
  close(): Promise<void>;
}

/** A kind of store an HTTP suite can run on: each test opens a fresh, empty one. */
export interface TestStoreKind {
  name: string;
  /** The service the store needs: without it the suite is skipped, or fails with CI=true (`requireService`). */
  service?: ServiceName;
  open(): Promise<OpenedTestStore>;
}

/** Memory, an SQLite file, and a PostgreSQL database of its own: the stores `buildTestApp({ store })` is run on. */
export const TEST_STORES: readonly TestStoreKind[] = [
  { name: 'memory', open: async () => ({ store: new MemoryUserStore(), close: async () => undefined }) },
  {
    name: 'SQLite',
    async open() {
      const folder = mkdtempSync(join(tmpdir(), 'gatehouse-http-'));
      const store = await SqliteUserStore.open({ filename: join(folder, 'gatehouse.db') });
      return {
        store,
        async close() {
          await store.close();
          rmSync(folder, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    service: 'postgres',
    async open() {
      const database = await createTestDatabase('http');
      const store = await PostgresUserStore.open({ connectionString: database.url });
      return {
        store,
        async close() {
          await store.close();
          await database.drop();
        },
      };
    },
  },
];

/**
 * Opens a fresh store of `kind` before each test of the enclosing `describe` (skipped, or failed with CI=true,
 * without the service it needs) and closes it after; `onOpen` builds what the tests use on it and may return what
 * must finish before the store closes (draining the mail, say).
 */
export function freshStoreEachTest(
  kind: TestStoreKind,
  onOpen: (store: UserStore) => Promise<(() => Promise<void>) | void> | (() => Promise<void>) | void,
): void {
  let opened: OpenedTestStore | undefined;
  let beforeClose: (() => Promise<void>) | void;
  beforeEach(async function () {
    if (kind.service) await requireService(this, kind.service);
    opened = await kind.open();
    beforeClose = await onOpen(opened.store);
  });
  afterEach(async () => {
    await beforeClose?.();
    await opened?.close();
    opened = undefined;
  });
}
