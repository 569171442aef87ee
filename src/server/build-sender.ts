import { ConsoleEmailSender } from '../email/console-email-sender';
import { EmailLinks } from '../email/email-links';
import type { EmailSender } from '../services/email-sender';
import { SmtpEmailSender } from '../email/smtp-email-sender';
import type { ServerConfig } from './config';
import { resolveOrganizationSettings } from '../services/organizations/organization-options';

/** The invitations' lifetime the core applies with this configuration (its default when unset or off). */
export function invitationTtlMsOf(config: Pick<ServerConfig, 'organizations'>): number | undefined {
  return config.organizations === false ? undefined : resolveOrganizationSettings(config.organizations)?.invitationTtlMs;
}

/**
 * The sender the configuration names: SMTP when `GATEHOUSE_SMTP_URL` is set, else the console. Used by the server
 * and by `gatehouse worker`, so both build the same messages with the same links.
 */
export function buildSender(config: ServerConfig): EmailSender & { close?(): Promise<void> } {
  const links = new EmailLinks({
    publicUrl: config.publicUrl,
    prefix: config.prefix,
    verifyUrl: config.verifyUrl,
    resetUrl: config.resetUrl,
    emailChangeUrl: config.emailChangeUrl,
  });
  // The email-change message states how long its link works: the configured lifetime, not the default.
  // The invitation states its lifetime too: the core's, from the same configuration.
  const lifetimes = {
    emailChangeTokenTtlMs: config.emailChangeTokenTtlMs,
    invitationTtlMs: invitationTtlMsOf(config),
  };
  if (config.smtpUrl) return new SmtpEmailSender({ url: config.smtpUrl, from: config.emailFrom, links, ...lifetimes });
  return new ConsoleEmailSender({ links, ...lifetimes });
}
