import { escapeHtml } from '../email/templates/render';

/** Markup that is already safe: produced by `html`, whose values are escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** A value `html` can take: text (escaped), numbers, markup already made safe, lists of those, or nothing. */
export type HtmlValue = string | number | SafeHtml | readonly HtmlValue[] | null | undefined | false;

/**
 * The only way the pages write markup: every interpolated value is escaped unless it is `SafeHtml`, so a value can
 * reach the page as text and never as markup, in element content and in quoted attributes alike.
 *
 * @example html`<p class="${kind}">${message}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1];
  });
  return new SafeHtml(out);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}
