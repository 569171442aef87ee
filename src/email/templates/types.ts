import type { OutboxKind } from '../../services/outbox-message';
import type { ApiKeyTemplates } from '../api-keys/api-key-templates';
import type { OidcTemplates } from '../oidc/oidc-templates';
import type { OrganizationTemplates } from '../organizations/organization-templates';
import type { PasskeyTemplates } from '../passkeys/passkey-templates';
export type { EmailMessage, LinkContext, NoticeContext } from './contexts';
import type { EmailMessage, LinkContext, NoticeContext } from './contexts';

/**
 * One builder per EmailSender operation. A language is one complete set (see `englishTemplates`); a host replaces
 * some messages with the senders' `templates` option, or all of them to ship another language.
 */
export interface EmailTemplates extends PasskeyTemplates, OidcTemplates, OrganizationTemplates, ApiKeyTemplates {
  verification(context: LinkContext): EmailMessage;
  passwordReset(context: LinkContext): EmailMessage;
  emailVerified(context: NoticeContext): EmailMessage;
  /** Carries no secret: the notice that tells the owner to reset if the change was not theirs. */
  passwordChanged(context: NoticeContext): EmailMessage;
  accountDeleted(context: NoticeContext): EmailMessage;
  /** Someone tried to register with an address that already has an account. */
  registrationAttempt(context: NoticeContext): EmailMessage;
  /** The link that confirms a new address; `email` is that new address, the recipient. */
  emailChange(context: LinkContext): EmailMessage;
  /** To the current address: a change of address was asked for; carries no link. */
  emailChangeRequested(context: NoticeContext): EmailMessage;
  /** To the previous address, once the change is made. */
  emailChanged(context: NoticeContext): EmailMessage;
  /** To the owner of an address another account asked to take as its own; `username` is the owner's. */
  emailChangeAttempt(context: NoticeContext): EmailMessage;
  /** Two-factor sign-in was switched on; carries no secret and no code. */
  secondFactorEnabled(context: NoticeContext): EmailMessage;
  /** Two-factor sign-in was switched off, by the person or by an operator. */
  secondFactorDisabled(context: NoticeContext): EmailMessage;
  /** New recovery codes replaced the old ones; never carries a code. */
  recoveryCodesRegenerated(context: NoticeContext): EmailMessage;
  /** A recovery code was used to sign in. */
  recoveryCodeUsed(context: NoticeContext): EmailMessage;
}

/** The name of an EmailSender operation, as the key of its template. */
export type EmailOperation = keyof EmailTemplates;

// One template per kind of queued message, and no other: a kind added on either side without the other fails here.
const sameKinds: [EmailOperation, OutboxKind] extends [OutboxKind, EmailOperation] ? true : never = true;
void sameKinds;
