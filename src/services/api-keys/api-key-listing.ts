import type { ApiKeyListing } from './api-key-records';
import type { ApiKeyView } from './api-key-views';

/** A stored key as its owner and administrators see it at `now`: never the key, never its hash. */
export function apiKeyView(listing: ApiKeyListing, now: Date): ApiKeyView {
  return {
    id: listing.id,
    name: listing.name,
    lastFour: listing.lastFour,
    scopes: [...listing.scopes],
    createdAt: listing.createdAt,
    expiresAt: listing.expiresAt,
    // Expiry is an exclusive end: a key whose `expiresAt` is now is refused, so it shows as expired.
    expired: listing.expiresAt.getTime() <= now.getTime(),
    lastUsedAt: listing.lastUsedAt,
    lastUsedIp: listing.lastUsedIp,
    createdBy:
      listing.createdBy !== null && listing.createdByUsername !== null
        ? { id: listing.createdBy, username: listing.createdByUsername }
        : null,
  };
}
