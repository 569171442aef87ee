import type {
  IdentityLink,
  IdentityRecords,
  IdentityRemoval,
  StoredIdentity,
  StoredOidcFlow,
  StoredOidcHandoff,
} from '../../../services/oidc/identity-records';
import type { WayInRule } from '../../../services/ways-in';
import { copyUser, isAtOrBefore } from '../copies';
import { identityKey, type MemoryData } from '../memory-state';
import { hasOtherWayIn } from '../ways-in';

/** Provider identities, their flows and handoffs, read outside a transaction or written in one. */
export class MemoryIdentityRecords implements IdentityRecords {
  constructor(private readonly data: MemoryData) {}

  async list(userId: string): Promise<StoredIdentity[]> {
    // Oldest first, as the SQL store orders them: `createdAt`, then `id`.
    return this.data.identities
      .ownedBy(userId)
      .map(([, identity]) => identity)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copyIdentity);
  }

  async find(issuer: string, subject: string): Promise<StoredIdentity | null> {
    const identity = this.data.identities.lookup('identity', identityKey(issuer, subject));
    return identity ? copyIdentity(identity) : null;
  }

  async addressHeld(emailKey: string, unverifiedAfter: Date): Promise<boolean> {
    if (this.data.users.lookup('emailKey', emailKey)) return true;
    for (const user of this.data.users.values()) {
      if (user.emailKey === emailKey && !isAtOrBefore(user.createdAt, unverifiedAfter)) return true;
    }
    return false;
  }

  async link(identity: StoredIdentity): Promise<IdentityLink> {
    const { data } = this;
    const user = data.users.get(identity.userId);
    if (!user) return 'gone';
    if (data.identities.lookup('identity', identityKey(identity.issuer, identity.subject))) return 'duplicate';
    // The row id is a primary key: a clash is the caller's bug, thrown as the database would.
    if (data.identities.has(identity.id)) throw new Error('MemoryUserStore: duplicate identity id');
    data.identities.set(identity.id, copyIdentity(identity));
    data.users.set(user.id, { ...user, updatedAt: new Date(identity.createdAt) });
    return 'linked';
  }

  async unlink(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<IdentityRemoval> {
    const { data } = this;
    const user = data.users.get(userId);
    const identity = data.identities.get(id);
    if (!user || identity?.userId !== userId) return { outcome: 'not_found' };
    if (wayIn && !hasOtherWayIn(data, userId, id, wayIn)) return { outcome: 'last_way_in' };
    data.identities.delete(id);
    const changed = { ...user, updatedAt: new Date(now) };
    data.users.set(userId, changed);
    return { outcome: 'removed', identity: copyIdentity(identity), user: copyUser(changed) };
  }

  async touch(id: string, now: Date): Promise<void> {
    const identity = this.data.identities.get(id);
    if (identity) this.data.identities.set(id, { ...identity, lastUsedAt: new Date(now) });
  }

  async createFlow(flow: StoredOidcFlow): Promise<void> {
    const { data } = this;
    // As the database's foreign key and primary key would refuse them.
    if (flow.userId !== null && !data.users.has(flow.userId)) throw new Error('MemoryUserStore: no user with that id');
    if (data.oidcFlows.has(flow.stateHash)) throw new Error('MemoryUserStore: duplicate OpenID flow state hash');
    data.oidcFlows.set(flow.stateHash, copyFlow(flow));
  }

  async consumeFlow(stateHash: string, now: Date): Promise<StoredOidcFlow | null> {
    const flow = this.data.oidcFlows.get(stateHash);
    if (!flow) return null;
    this.data.oidcFlows.delete(stateHash);
    return isAtOrBefore(flow.expiresAt, now) ? null : copyFlow(flow);
  }

  async createHandoff(handoff: StoredOidcHandoff): Promise<void> {
    const { data } = this;
    if (handoff.userId !== null && !data.users.has(handoff.userId)) {
      throw new Error('MemoryUserStore: no user with that id');
    }
    if (data.oidcHandoffs.has(handoff.codeHash)) throw new Error('MemoryUserStore: duplicate OpenID handoff code hash');
    data.oidcHandoffs.set(handoff.codeHash, copyHandoff(handoff));
  }

  async consumeHandoff(codeHash: string, now: Date): Promise<StoredOidcHandoff | null> {
    const handoff = this.data.oidcHandoffs.get(codeHash);
    if (!handoff) return null;
    this.data.oidcHandoffs.delete(codeHash);
    return isAtOrBefore(handoff.expiresAt, now) ? null : copyHandoff(handoff);
  }
}

function copyIdentity(identity: StoredIdentity): StoredIdentity {
  return {
    id: identity.id,
    userId: identity.userId,
    provider: identity.provider,
    issuer: identity.issuer,
    subject: identity.subject,
    email: identity.email ?? null,
    createdAt: new Date(identity.createdAt),
    lastUsedAt: identity.lastUsedAt ? new Date(identity.lastUsedAt) : null,
  };
}

function copyFlow(flow: StoredOidcFlow): StoredOidcFlow {
  return {
    stateHash: flow.stateHash,
    provider: flow.provider,
    browserHash: flow.browserHash,
    sealed: flow.sealed,
    intent: flow.intent,
    userId: flow.userId ?? null,
    sessionId: flow.sessionId ?? null,
    returnTo: flow.returnTo,
    createdAt: new Date(flow.createdAt),
    expiresAt: new Date(flow.expiresAt),
  };
}

function copyHandoff(handoff: StoredOidcHandoff): StoredOidcHandoff {
  return {
    codeHash: handoff.codeHash,
    outcome: handoff.outcome,
    userId: handoff.userId ?? null,
    identityId: handoff.identityId ?? null,
    methods: [...handoff.methods],
    skipSecondFactor: handoff.skipSecondFactor,
    ip: handoff.ip ?? null,
    userAgent: handoff.userAgent ?? null,
    createdAt: new Date(handoff.createdAt),
    expiresAt: new Date(handoff.expiresAt),
  };
}
