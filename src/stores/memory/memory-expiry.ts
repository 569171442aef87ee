import type { ExpiryCutoffs } from '../../services/user-store';
import { isAtOrBefore } from './copies';
import { removeUser, type MemoryData } from './memory-state';
import type { TableAccess } from './table';

/** What `UserStore.deleteExpired` removes, in one transaction (the caller's); returns how many rows went. */
export function deleteExpired(data: MemoryData, cutoffs: ExpiryCutoffs): number {
  const { now, sessionIdleBefore, unverifiedCreatedBefore, outboxChangedBefore, auditBefore } = cutoffs;
  let deleted = 0;
  const sweep = <V>(table: TableAccess<string, V>, expired: (row: V) => boolean) => {
    for (const [key, row] of [...table.entries()]) {
      if (expired(row) && table.delete(key)) deleted++;
    }
  };
  if (auditBefore) sweep(data.auditEvents, (event) => isAtOrBefore(event.at, auditBefore));
  if (outboxChangedBefore) {
    sweep(data.outbox, (row) => row.status !== 'pending' && isAtOrBefore(row.updatedAt, outboxChangedBefore));
  }
  for (const user of [...data.users.values()]) {
    if (unverifiedCreatedBefore && !user.verified && isAtOrBefore(user.createdAt, unverifiedCreatedBefore)) {
      removeUser(data, user);
      deleted++;
    }
  }
  sweep(
    data.sessions,
    (session) => isAtOrBefore(session.expiresAt, now) || isAtOrBefore(session.lastSeenAt, sessionIdleBefore),
  );
  sweep(data.emailChanges, (change) => isAtOrBefore(change.expiresAt, now));
  sweep(data.tokens, (token) => isAtOrBefore(token.expiresAt, now));
  sweep(data.loginChallenges, (challenge) => isAtOrBefore(challenge.expiresAt, now));
  sweep(data.passkeyChallenges, (challenge) => isAtOrBefore(challenge.expiresAt, now));
  sweep(data.oidcFlows, (flow) => isAtOrBefore(flow.expiresAt, now));
  sweep(data.oidcHandoffs, (handoff) => isAtOrBefore(handoff.expiresAt, now));
  sweep(data.invitations, (invitation) => isAtOrBefore(invitation.expiresAt, now));
  sweep(data.apiKeys, (key) => isAtOrBefore(key.expiresAt, now));
  return deleted;
}
