import type { StoredSession } from '../../services/types';
import { supersedeMessages } from './memory-outbox-records';
import type { MemoryData } from './memory-state';

// What ending sessions takes with it, shared by the session and email-change records (each ends the other's rows:
// logout-all drops a pending change; confirming a change may end the other sessions).

/** Deletes the user's sessions (those `which` picks, or all); returns how many went. */
export function deleteSessionsOf(
  data: MemoryData,
  userId: string,
  which: (session: StoredSession) => boolean = () => true,
): number {
  let deleted = 0;
  for (const [tokenHash, session] of data.sessions.ownedBy(userId)) {
    if (!which(session)) continue;
    data.sessions.delete(tokenHash);
    deleted++;
  }
  return deleted;
}

/**
 * The user's pending change of address goes, and its link, if no worker holds it yet, is never sent. With
 * `keptSessionId` (ending the other sessions), a change that this kept session asked for stays; null: no session
 * is kept (its own is gone or another's), so any change goes.
 */
export function dropEmailChange(data: MemoryData, userId: string, at: Date, keptSessionId?: string | null): void {
  let dropped = 0;
  for (const [tokenHash, change] of data.emailChanges.ownedBy(userId)) {
    if (keptSessionId && change.keepSessionId === keptSessionId) continue;
    data.emailChanges.delete(tokenHash);
    dropped++;
  }
  // Ending every session fails the links whatever was found; ending the others only when a change went.
  if (keptSessionId === undefined || dropped > 0) supersedeMessages(data, userId, 'emailChange', at);
}
