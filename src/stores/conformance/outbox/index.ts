import type { ConformanceSuite } from '../support';
import { describeMessages } from './messages';

/** The outbox store contract: queueing with account changes, claims under a lease, outcomes, listing, retries. */
export function describeOutboxStoreAreas(suite: ConformanceSuite): void {
  describeMessages(suite);
}
