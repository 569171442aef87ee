import type { EmailMessage, LinkContext, NoticeContext } from '../templates/contexts';
import { renderMessage } from '../templates/render';

/**
 * The organizations' messages. The invitation names neither the organization nor the inviter: those are the
 * organization's own words, which an invitation must not carry into a mail as if from us; the invitation page shows
 * them to whoever holds the link.
 */
export interface OrganizationTemplates {
  /** An invitation to join an organization; `link` carries the invitation's token, `username` is the address. */
  organizationInvitation(context: LinkContext): EmailMessage;
  /** An organization the account was a member of was deleted. */
  organizationDeleted(context: NoticeContext): EmailMessage;
}

const render = (subject: string, blocks: Parameters<typeof renderMessage>[1]) => renderMessage(subject, blocks, 'en');

/** The organizations' messages in English, part of `englishTemplates`. */
export const englishOrganizationTemplates: OrganizationTemplates = {
  organizationInvitation: ({ appName, link }) =>
    render(`You are invited to join an organization on ${appName}`, [
      'Hello,',
      `Someone invited this address to join an organization on ${appName}. Open the link to see which organization, ` +
        'who invited you and with which role, and to accept or decline:',
      { label: 'See the invitation', url: link },
      `If you have no ${appName} account yet, the page lets you create one with this address first. If you did not ` +
        'expect this invitation, ignore this message: nothing happens unless you accept.',
    ]),

  organizationDeleted: ({ appName, username }) =>
    render(`An organization you belonged to on ${appName} was deleted`, [
      `Hello ${username},`,
      `An organization you were a member of on ${appName} was deleted by one of its owners. Your account is unchanged.`,
    ]),
};
