import type {
  NewOutboxMessage,
  TransactionOptions,
  UserStore,
  UserStoreTransaction,
} from '../../src/services/user-store';

/**
 * Queues a message to an existing user in a transaction of its own, as the core does for a message no account change
 * causes; false, and nothing stored, when the user does not exist.
 */
export function enqueue(store: UserStore, userId: string, message: NewOutboxMessage): Promise<boolean> {
  return store.transaction(async (tx) => {
    const user = await tx.users.findById(userId);
    if (!user) return false;
    await tx.outbox.add(message, user);
    return true;
  });
}

/** A write of the new contract, as `aggregate.method` of a transaction (`'users.delete'`, `'secondFactors.enable'`). */
export type TransactionWrite = {
  [A in keyof UserStoreTransaction]: `${A}.${Extract<keyof UserStoreTransaction[A], string>}`;
}[keyof UserStoreTransaction];

/**
 * Makes the next transaction that calls `write` wait for `meanwhile` first, as if `meanwhile` committed just while the
 * operation did its slow part (verifying or hashing a password, checking a code) before its write. `meanwhile` runs
 * outside any transaction (inside one, it would wait for itself). The transaction is found by a dry run that stops,
 * undone, where it calls `write` (a store may run a transaction's work again: `UserStore.transaction`);
 * transactions that do not call it run as they are. Returns what puts the store back.
 */
export function meanwhileBefore(
  store: UserStore,
  write: TransactionWrite,
  meanwhile: () => Promise<unknown>,
): () => void {
  const [aggregate, method] = write.split('.') as [keyof UserStoreTransaction, string];
  const original = store.transaction;
  const run = <T>(work: (tx: UserStoreTransaction) => Promise<T>, options?: TransactionOptions) =>
    original.call(store, work, options) as Promise<T>;
  const reached = new Error(`the write ${write} is reached`);
  const stoppingAtWrite = (tx: UserStoreTransaction): UserStoreTransaction => {
    const records = new Proxy(tx[aggregate], {
      get(target, property) {
        if (property === method) return () => Promise.reject(reached);
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...tx, [aggregate]: records };
  };
  let pending = true;
  store.transaction = async <T>(work: (tx: UserStoreTransaction) => Promise<T>, options?: TransactionOptions) => {
    if (pending) {
      try {
        return await run((tx) => work(stoppingAtWrite(tx)), options);
      } catch (error) {
        if (error !== reached) throw error;
      }
      pending = false;
      await meanwhile();
    }
    return run(work, options);
  };
  return () => {
    store.transaction = original;
  };
}
