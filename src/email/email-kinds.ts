import type { EmailLinks } from './email-links';
import type { LinkKind } from '../services/outbox-message';

/** The sender option that states how long the link of a kind stays valid (keep it equal to the core's). */
export type LinkLifetimeOption =
  'verificationTokenTtlMs' | 'resetTokenTtlMs' | 'emailChangeTokenTtlMs' | 'invitationTtlMs';

/** How the built-in senders make the link of one kind: the page it opens (an `EmailLinks` base) and its lifetime. */
export interface LinkKindEntry {
  link(links: EmailLinks, token: string): string;
  lifetime: LinkLifetimeOption;
}

/**
 * The registry of what the built-in senders need per kind beyond its template (`EmailTemplates[kind]`, same key):
 * for a kind with a link, where the link goes and how long it lives. A new notice needs only its kind and its
 * template; a new kind with a link needs one entry here too.
 */
export const LINK_KIND_ENTRIES: { readonly [K in LinkKind]: LinkKindEntry } = {
  verification: { link: (links, token) => links.verification(token), lifetime: 'verificationTokenTtlMs' },
  passwordReset: { link: (links, token) => links.passwordReset(token), lifetime: 'resetTokenTtlMs' },
  emailChange: { link: (links, token) => links.emailChange(token), lifetime: 'emailChangeTokenTtlMs' },
  organizationInvitation: { link: (links, token) => links.invitation(token), lifetime: 'invitationTtlMs' },
};
