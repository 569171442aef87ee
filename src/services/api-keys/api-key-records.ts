import type { Awaitable } from '../awaitable';
import type { AccessAnswer, AccountUser } from '../types';

/** An API key as the store keeps it: only the keyed hash of the key (HMAC-SHA256 under the secret key). */
export interface StoredApiKey {
  /** Its public name (`newRecordId()`): what listings show and a revocation names. Never the key or its hash. */
  id: string;
  /** HMAC-SHA256 of the key under the secret key (`TokenHasher.hash`), base64url; unique. */
  keyHash: string;
  /** The owner: a person, or a service account. */
  userId: string;
  /** 1 to 64 characters, unique among the owner's keys. */
  name: string;
  /** The key's last four characters, so that a person can tell their keys apart. */
  lastFour: string;
  /** The permissions the key may use, sorted; never empty, never `gatehouse.*`. */
  scopes: readonly string[];
  createdAt: Date;
  /** Always set: a key is refused from this instant on. */
  expiresAt: Date;
  /** The last request it authenticated, written at most once per `sessionRefreshIntervalMs`; null before its first. */
  lastUsedAt: Date | null;
  /** The client address of that request. */
  lastUsedIp: string | null;
  /** Who created it: the owner, or the administrator who made it for a service account; null once they are deleted. */
  createdBy: string | null;
}

/** A key as listings show it: the stored key without its hash, with the creator's username (null when deleted). */
export interface ApiKeyListing extends Omit<StoredApiKey, 'keyHash'> {
  createdByUsername: string | null;
}

/** What a revocation removed, for the audit event and the owner's notice. */
export interface RevokedApiKey {
  id: string;
  userId: string;
  name: string;
  lastFour: string;
}

/**
 * What checking a request's key needs, read in one statement by the key's hash: the key's scopes and deadline, its
 * owner's public fields and disabled mark, and, for a guard's permission, whether the owner holds it now.
 */
export interface ApiKeyCheck {
  keyId: string;
  user: AccountUser;
  /** Whether an administrator has disabled the owner (a disabled owner's keys were revoked; this refuses a racer). */
  disabled: boolean;
  expiresAt: Date;
  scopes: readonly string[];
  lastUsedAt: Date | null;
  /** The owner's answer for the permission the check was asked about, as `AccessReads.checkPermission` gives it. */
  access?: AccessAnswer;
}

/** A service account: a user without password, mailbox or sign-in, whose keys only administrators manage. */
export interface StoredServiceAccount {
  userId: string;
  createdAt: Date;
  /** The administrator who created it (null: the operator's CLI, or that administrator was deleted since). */
  createdBy: string | null;
}

/** API keys as the request path and the listings read them, outside a transaction (`UserStore.apiKeys`). */
export interface ApiKeyReads {
  /**
   * The key and its owner by the key's hash (the unique index), in one statement; null when there is no such key.
   * With `permission`, the same statement answers whether the owner holds it now (through any of their global roles),
   * as `AccessReads.checkPermission` would: 'unknown' when no such permission exists. Expiry and the disabled mark are
   * judged by the caller. Like `SessionReads.check`, a store that reads synchronously may answer with the value itself;
   * a failure still comes as a rejected promise, never a throw.
   */
  check(keyHash: string, permission?: string): Awaitable<ApiKeyCheck | null>;
  /** Every key of the user, expired ones included, newest first (`createdAt`, then `id`, both descending). */
  list(userId: string): Promise<ApiKeyListing[]>;
  /**
   * Records a use: sets `lastUsedAt` and `lastUsedIp` if the key still exists. Its own statement, off the request's
   * read; may be lost to a crash (the listing then shows an older use).
   */
  touch(keyId: string, at: Date, ip: string | null): Promise<void>;
  /** The service account of this user id, or null when the user is a person (or gone). */
  serviceAccount(userId: string): Promise<StoredServiceAccount | null>;
  /** Every service account, oldest first. */
  listServiceAccounts(): Promise<StoredServiceAccount[]>;
}

/**
 * API keys inside a transaction (`UserStoreTransaction.apiKeys`). A user's keys change under the user's row lock
 * (PostgreSQL: the user row `FOR NO KEY UPDATE`, the lock order of every change of a user), so that counting the live
 * keys, checking the name and the scopes, and inserting cannot be raced by another creation, a disabling or a deletion.
 */
export interface ApiKeyRecords {
  /** Locks the user's row for the rest of the transaction; false when the user does not exist. */
  lockOwner(userId: string): Promise<boolean>;
  /** The permissions the user holds now through their global roles, sorted (read inside the transaction). */
  permissionsOf(userId: string): Promise<string[]>;
  /** How many of the user's keys expire after `now`. */
  countLive(userId: string, now: Date): Promise<number>;
  /** Deletes the user's keys that expired at or before `now` (their names become free); how many went. */
  deleteExpiredOf(userId: string, now: Date): Promise<number>;
  /** Inserts the key; 'name_taken' when the owner has a key of that name already (nothing inserted). */
  create(key: StoredApiKey): Promise<'created' | 'name_taken'>;
  /** Deletes the user's key with this id; what went, or null when the user has no such key. */
  delete(userId: string, keyId: string): Promise<RevokedApiKey | null>;
  /** Deletes the key with this hash, whoever owns it; what went, or null when there is none. */
  deleteByHash(keyHash: string): Promise<RevokedApiKey | null>;
  /** Deletes every key of the user; what went (empty when none). */
  deleteAll(userId: string): Promise<RevokedApiKey[]>;
  /** Marks the user a service account. */
  createServiceAccount(account: StoredServiceAccount): Promise<void>;
  /** The service account of this user id (read inside the transaction), or null for a person. */
  serviceAccount(userId: string): Promise<StoredServiceAccount | null>;
}
