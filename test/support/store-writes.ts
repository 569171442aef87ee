import type { NewOutboxMessage, UserStore } from '../../src/services/user-store';

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
