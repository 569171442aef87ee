import type { UserStore, UserStoreTransaction } from '../user-store';

/**
 * Wraps one aggregate store, as a transaction sees it and as the reads outside one see it, and returns something of
 * the same shape: typically a `Proxy` that counts or times calls, or `Object.create(inner)` with one method replaced.
 */
export type StoreWrapper = <T extends object>(inner: T) => T;

/** Which aggregates to wrap; the others are handed on untouched. */
export type StoreWrappers = { [K in keyof UserStoreTransaction]?: StoreWrapper };

const READ_SIDES = [
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
  'audit',
  'outbox',
] as const satisfies readonly (keyof UserStoreTransaction & keyof UserStore)[];

/**
 * A store that is `store` with some aggregates wrapped, without re-declaring the others: a host that counts, times or
 * logs the calls of one store writes that one wrapper (docs/guides/stores.md).
 *
 * @example
 * const counted = wrapStore(store, { sessions: (inner) => countingProxy(inner) });
 */
export function wrapStore(store: UserStore, wrappers: StoreWrappers): UserStore {
  const wrapped = Object.create(store) as { -readonly [K in keyof UserStore]: UserStore[K] };
  for (const side of READ_SIDES) {
    const wrap = wrappers[side];
    if (wrap) Object.defineProperty(wrapped, side, { value: wrap(store[side]), enumerable: true });
  }
  wrapped.transaction = (work, options) =>
    store.transaction((tx) => {
      const seen = { ...tx } as { -readonly [K in keyof UserStoreTransaction]: UserStoreTransaction[K] };
      for (const name of Object.keys(wrappers) as (keyof UserStoreTransaction)[]) {
        const wrap = wrappers[name];
        if (wrap) (seen as Record<string, object>)[name] = wrap(tx[name]);
      }
      return work(seen);
    }, options);
  return wrapped;
}
