import type { UserStore, UserStoreTransaction } from '../../src/services/user-store';
import { wrapStore, type StoreWrapper, type StoreWrappers } from '../../src/services/store/wrap-store';

const AGGREGATES = [
  'users',
  'passwords',
  'tokens',
  'emailChanges',
  'sessions',
  'secondFactors',
  'loginChallenges',
  'passkeys',
  'oidc',
  'organizations',
  'apiKeys',
  'access',
  'outbox',
  'audit',
] as const satisfies readonly (keyof UserStoreTransaction)[];

/**
 * A store wrapped so that every method call is counted by name: `aggregate.method` for the calls on an aggregate,
 * inside a transaction or outside one (`sessions.check`, `users.delete`), the method's own name for the store's
 * (`transaction`, `deleteExpired`); `admin` is counted as an aggregate too. The calls still reach the real store, and
 * a method replaced on it later (a test's failure) is the one called.
 */
export function countingStore(inner: UserStore): { store: UserStore; calls: Map<string, number>; total(): number } {
  const calls = new Map<string, number>();
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const counting =
    (prefix: string): StoreWrapper =>
    (records) =>
      countCalls(records, (property) => count(`${prefix}.${property}`));
  const wrappers: StoreWrappers = Object.fromEntries(AGGREGATES.map((name) => [name, counting(name)]));
  const wrapped = wrapStore(inner, wrappers);
  // `admin` has no transaction side, so wrapStore leaves it alone.
  Object.defineProperty(wrapped, 'admin', { value: counting('admin')(inner.admin), enumerable: true });
  return { store: countCalls(wrapped, count), calls, total: () => [...calls.values()].reduce((a, b) => a + b, 0) };
}

/** `target` with every method call reported by name first. */
function countCalls<T extends object>(target: T, report: (property: string) => void): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        report(property);
        return (value as (...args: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}
