import { KINDS_OF_FEATURES } from './kinds-of-features';

export type LinkKind = (typeof KINDS_OF_FEATURES)[number]['links'][number];

export type NoticeKind = (typeof KINDS_OF_FEATURES)[number]['notices'][number];

export type OutboxKind = LinkKind | NoticeKind;

/**
 * The kinds of message the outbox carries: each is one `kind` of `OutgoingEmail` and the key of its template (which
 * `email/templates/types.ts` checks against this list). Three of them carry a link with a raw token (`LINK_KINDS`);
 * the others are notices. The database does not constrain the column (2026-11-30-kinds-checked-in-code): the stores
 * check a kind with `isOutboxKind` where they write it, and the worker where it reads it, so a new kind is one entry
 * in its feature's kinds (`services/kinds-of-features.ts`) and needs no table rebuild.
 */
export const OUTBOX_KINDS: readonly OutboxKind[] = Object.freeze(
  KINDS_OF_FEATURES.flatMap((feature): OutboxKind[] => [...feature.links, ...feature.notices]),
);

/** The kinds whose message carries a link with a raw (sealed at rest) token. */
export const LINK_KINDS: readonly LinkKind[] = Object.freeze(KINDS_OF_FEATURES.flatMap((feature) => feature.links));

const KNOWN_KINDS: ReadonlySet<string> = new Set(OUTBOX_KINDS);
const LINKS: ReadonlySet<string> = new Set(LINK_KINDS);

/** Whether `value` is a kind this release knows: a row written by a later release may carry another. */
export function isOutboxKind(value: unknown): value is OutboxKind {
  return typeof value === 'string' && KNOWN_KINDS.has(value);
}

/** Whether a message of `kind` carries a link, and so a token. */
export function carriesLink(kind: OutboxKind): kind is LinkKind {
  return LINKS.has(kind);
}

/** Refuses to queue a kind this release does not know, before it reaches the database (which no longer checks). */
export function checkOutboxKind(kind: unknown): OutboxKind {
  if (!isOutboxKind(kind)) throw new TypeError(`Gatehouse: unknown outbox message kind ${JSON.stringify(kind)}`);
  return kind;
}

/**
 * `pending`: waiting for its next attempt, or being sent under a claim (`claimed`); `sent`: the sender accepted it;
 * `failed`: given up (a permanent refusal, the give-up time passed, or a newer message of the same kind superseded it).
 */
export type OutboxStatus = 'pending' | 'sent' | 'failed';

export const OUTBOX_STATUSES: readonly OutboxStatus[] = ['pending', 'sent', 'failed'];

/** `lastError` of a message failed unsent because a newer message of the same kind replaced the token it carried. */
export const SUPERSEDED_ERROR = 'SUPERSEDED';

/**
 * The instant a store stamps on the messages it fails for a change whose method takes no `now` of its own (ending
 * sessions, deleting an account): the change's audit event's, else its message's, else the store's clock.
 */
export function changeInstant(audit?: { at: Date }, message?: { createdAt: Date }): Date {
  return new Date(audit?.at ?? message?.createdAt ?? Date.now());
}

/** `lastError` of a message whose give-up time passed before an attempt could start. */
export const EXPIRED_ERROR = 'EXPIRED';

/**
 * A message as the core decides it, queued (`tx.outbox.add`) in the transaction of the account change that causes
 * it, so both commit or roll back together. Its recipient (id, username and email) is the user row that change
 * returned, copied into the message: the account-deleted notice must still know where to go once the row is gone,
 * and a verification only learns whose token it was inside the store.
 */
export interface NewOutboxMessage {
  /** A random UUID: the idempotency key of the message, and the local part of its Message-ID header. */
  id: string;
  kind: OutboxKind;
  /** The raw token encrypted by `TokenSealer` (link messages only), so no raw token is ever at rest in the clear. */
  sealedToken: string | null;
  createdAt: Date;
  /** No attempt is made from this instant on: never later than the expiry of the token inside the message. */
  giveUpAt: Date;
}

/** A stored message as listed (`gatehouse outbox list`): everything but the sealed token, which is only claimed. */
export interface OutboxEntry {
  id: string;
  kind: OutboxKind;
  userId: string;
  username: string;
  email: string;
  status: OutboxStatus;
  /** Attempts started so far (a claim counts as one, so a worker that dies mid-send still counts). */
  attempts: number;
  /** When a pending message is next due; while it is claimed, when the claim's lease runs out. */
  nextAttemptAt: Date;
  giveUpAt: Date;
  createdAt: Date;
  updatedAt: Date;
  sentAt: Date | null;
  /** The class and code of the last failure (`EmailDeliveryError:ESOCKET`), never a server's text. */
  lastError: string | null;
  /** Whether a sealed token is still stored (a pending link message); erased once sent or given up. */
  hasToken: boolean;
  /** Whether a worker holds a claim on it (sending now, or died holding it until the lease runs out). */
  claimed: boolean;
}

/** A message a worker has claimed: it alone may record a retry or a failure for it while the lease lasts. */
export interface ClaimedMessage {
  id: string;
  kind: OutboxKind;
  userId: string;
  username: string;
  email: string;
  sealedToken: string | null;
  /** Attempts including this one. */
  attempts: number;
  giveUpAt: Date;
  createdAt: Date;
  /** Identifies this claim; a later claim of the same message (after the lease ran out) gets another. */
  claimId: string;
}

/** What `OutboxQueue.list` returns: newest first, at most `limit` (default 100). */
export interface OutboxQuery {
  status?: OutboxStatus;
  limit?: number;
}

/**
 * What `OutboxQueue.retry` brings back: one message by id, or every failed one. A pending message becomes due now; a
 * failed notice becomes pending again with a new give-up time. A failed link message cannot come back: its token
 * was erased when it failed, and the link would be dead anyway (the user asks for a new one).
 */
export type RetryTarget = { id: string } | { status: 'failed' };
