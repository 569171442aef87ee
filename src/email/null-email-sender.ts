import type { EmailSender } from '../services/email-sender';
import type { OutboxKind } from '../services/outbox-message';

/**
 * Sends nothing. For tools that build the account core but trigger no mail (the admin CLI). It carries only the kinds
 * every sender has, so the core queues no optional message for it (an email change is refused).
 */
export class NullEmailSender implements EmailSender {
  readonly kinds: readonly OutboxKind[] = [
    'verification',
    'passwordReset',
    'emailVerified',
    'passwordChanged',
    'accountDeleted',
  ];

  async send(): Promise<void> {}
}
