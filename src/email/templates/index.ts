import { englishTemplates } from './en';
import type { EmailTemplates } from './types';

export { englishDuration, englishTemplates } from './en';
export { escapeHtml, renderMessage, type MessageBlock } from './render';
export type { EmailMessage, EmailOperation, EmailTemplates, LinkContext, NoticeContext } from './types';

/** The shipped English set with the host's replacements laid over it, checked once so a typo fails at start. */
export function resolveTemplates(
  overrides: Partial<EmailTemplates> = {},
  base: EmailTemplates = englishTemplates,
): EmailTemplates {
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
  return { ...base, ...defined };
}

/** A BCP 47-looking tag: a language and optional subtags (`fr`, `pt-BR`, `zh-Hant-TW`). */
const LOCALE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/** The canonical key of a locale tag: lower case, `_` read as `-` (`pt_BR` and `pt-br` are `pt-br`); null if not one. */
export function localeKey(tag: unknown): string | null {
  if (typeof tag !== 'string') return null;
  const key = tag.trim().replace(/_/g, '-').toLowerCase();
  return LOCALE_TAG.test(key) ? key : null;
}

/**
 * The message sets of the languages a host ships, each laid over `base` (the default language, with the host's own
 * replacements), so a partial translation falls back message by message. Keys are locale tags; checked once.
 */
export function resolveLocales(
  locales: Record<string, Partial<EmailTemplates>> = {},
  base: EmailTemplates,
): Map<string, EmailTemplates> {
  if (locales === null || typeof locales !== 'object') {
    throw new TypeError(
      'Gatehouse: email `locales` must map locale tags to template sets, e.g. { fr: frenchTemplates }',
    );
  }
  const resolved = new Map<string, EmailTemplates>();
  for (const [tag, templates] of Object.entries(locales)) {
    const key = localeKey(tag);
    if (key === null) throw new TypeError(`Gatehouse: email locale "${tag}" is not a locale tag such as fr or pt-BR`);
    resolved.set(key, resolveTemplates(templates, base));
  }
  return resolved;
}

/**
 * The set for `locale`: its exact tag, else its language (`pt-BR` falls back to `pt`), else `fallback`.
 *
 * @example
 * templatesFor(locales, 'fr-CA', english); // the `fr` set when there is no `fr-ca`
 */
export function templatesFor(
  locales: ReadonlyMap<string, EmailTemplates>,
  locale: string | undefined,
  fallback: EmailTemplates,
): EmailTemplates {
  const key = localeKey(locale);
  if (key === null) return fallback;
  return locales.get(key) ?? locales.get(key.split('-')[0]) ?? fallback;
}
