/** The email side of Gatehouse: link building, message templates, and the console and SMTP senders. */
export type { EmailContext, EmailSender, LinkEmail, NoticeEmail, OutgoingEmail } from '../services/email-sender';
export { fromLegacySender, type LegacyEmailSender } from '../services/legacy-email-sender';
export {
  EmailLinks,
  DEFAULT_EMAIL_CHANGE_PATH,
  DEFAULT_RESET_PATH,
  DEFAULT_VERIFY_PATH,
  type EmailLinksOptions,
} from './email-links';
export { EmailDeliveryError, type EmailDeliveryFailure } from './email-delivery-error';
export { TemplatedEmailSender, DEFAULT_APP_NAME, type TemplatedEmailSenderOptions } from './templated-email-sender';
export { ConsoleEmailSender, type ConsoleEmailSenderOptions, type TextSink } from './console-email-sender';
export { SmtpEmailSender, type SmtpEmailSenderOptions } from './smtp-email-sender';
export { SMTP_DEFAULTS, type SmtpTransportOptions } from './smtp-transport-options';
export {
  englishDuration,
  englishTemplates,
  escapeHtml,
  localeKey,
  renderMessage,
  resolveLocales,
  resolveTemplates,
  templatesFor,
  type EmailMessage,
  type EmailOperation,
  type EmailTemplates,
  type LinkContext,
  type MessageBlock,
  type NoticeContext,
} from './templates';
export type { PasskeyTemplates } from './passkeys/passkey-templates';
export type { OidcTemplates } from './oidc/oidc-templates';
export type { OrganizationTemplates } from './organizations/organization-templates';
export type { ApiKeyTemplates } from './api-keys/api-key-templates';
