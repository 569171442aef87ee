import { englishTemplates } from './en';
import type { EmailTemplates } from './types';

export { englishDuration, englishTemplates } from './en';
export { escapeHtml, renderMessage, type MessageBlock } from './render';
export type { EmailMessage, EmailOperation, EmailTemplates, LinkContext, NoticeContext } from './types';

/** The shipped English set with the host's replacements laid over it, checked once so a typo fails at start. */
export function resolveTemplates(overrides: Partial<EmailTemplates> = {}): EmailTemplates {
  for (const [name, template] of Object.entries(overrides)) {
    if (!(name in englishTemplates)) {
      const known = Object.keys(englishTemplates).join(', ');
      throw new TypeError(`Gatehouse: unknown email template "${name}"; known: ${known}`);
    }
    if (template !== undefined && typeof template !== 'function') {
      throw new TypeError(`Gatehouse: email template "${name}" must be a function returning { subject, text, html }`);
    }
  }
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, template]) => template !== undefined));
  return { ...englishTemplates, ...defined };
}
