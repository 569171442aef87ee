import { UserStore } from '../../src/services/user-store';

/** A store wrapped so that every method call is counted by name; the calls still reach the real store. */
export function countingStore(inner: UserStore): { store: UserStore; calls: Map<string, number>; total(): number } {
  const calls = new Map<string, number>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store, calls, total: () => [...calls.values()].reduce((a, b) => a + b, 0) };
}
