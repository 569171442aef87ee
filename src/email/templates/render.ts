import type { EmailMessage } from './contexts';

/** A paragraph of plain text, or a link shown as a button-like anchor in HTML and as the bare URL in text. */
export type MessageBlock = string | { label: string; url: string };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML body or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
}

/**
 * Renders one message in both forms from the same blocks, so the text and HTML bodies cannot drift apart and every
 * value reaching the HTML is escaped here, once: templates never write markup themselves.
 *
 * @example
 * renderMessage('Welcome', [`Hello ${username},`, { label: 'Open', url: link }]);
 */
export function renderMessage(subject: string, blocks: readonly MessageBlock[], lang = 'en'): EmailMessage {
  const text = blocks.map((block) => (typeof block === 'string' ? block : block.url)).join('\n\n') + '\n';
  const body = blocks.map((block) => (typeof block === 'string' ? paragraph(block) : linkBlock(block))).join('\n');
  const html =
    `<!doctype html>\n<html lang="${escapeHtml(lang)}">\n` +
    `<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n` +
    `<body style="font-family: sans-serif; line-height: 1.5; color: #222;">\n${body}\n</body>\n</html>\n`;
  return { subject, text, html };
}

function paragraph(text: string): string {
  return `<p>${escapeHtml(text)}</p>`;
}

// The bare URL follows the anchor for mail clients that strip links or render no HTML.
function linkBlock({ label, url }: { label: string; url: string }): string {
  const href = escapeHtml(url);
  const anchor = `<p><a href="${href}">${escapeHtml(label)}</a></p>`;
  return `${anchor}\n<p style="font-size: 0.9em; word-break: break-all;">${href}</p>`;
}
