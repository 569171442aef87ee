import type { AuthMethod } from './auth-methods';

/**
 * What one feature adds to the kinds the core knows, declared in the feature's own slice
 * (`services/<feature>/<feature>-kinds.ts`) and gathered by `services/kinds-of-features.ts`: the credentials it signs
 * in with, each with the methods (RFC 8176) a proof of it records on the session; the outbox kinds of the emails it
 * sends, those that carry a link with a raw token (`links`) apart from the notices; the audit event types it writes.
 */
export interface FeatureKinds {
  readonly credentials: { readonly [kind: string]: readonly AuthMethod[] };
  readonly links: readonly string[];
  readonly notices: readonly string[];
  readonly audit: readonly string[];
}
