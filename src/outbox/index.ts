/** Email that is never lost: the outbox's messages, the delivery worker, its options and the token sealing. */
export {
  carriesLink,
  isOutboxKind,
  LINK_KINDS,
  OUTBOX_KINDS,
  OUTBOX_STATUSES,
  type ClaimedMessage,
  type LinkKind,
  type NoticeKind,
  type NewOutboxMessage,
  type OutboxEntry,
  type OutboxKind,
  type OutboxQuery,
  type OutboxStatus,
  type RetryTarget,
} from '../services/outbox-message';
export {
  DEFAULT_OUTBOX_OPTIONS,
  resolveOutboxOptions,
  type LocaleResolver,
  type OutboxOptions,
  type Recipient,
} from '../services/outbox-options';
export { OutboxWorker, type OutboxWorkerDeps, type OutboxWorkerStore } from './outbox-worker';
export { RetrySchedule } from './retry-schedule';
export { SealError, TokenSealer } from '../services/token-sealer';
