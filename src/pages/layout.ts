import { html, SafeHtml } from './html';

/** Paths of the pages' own assets, below the prefix; `accountPages()` and `accountApiDocs()` serve them. */
export const SCRIPT_PATH = '/assets/gatehouse-pages.js';
export const STYLES_PATH = '/assets/gatehouse-pages.css';
/** `@simplewebauthn/browser`, served locally for the pages that run passkey ceremonies (assets/webauthn-library.ts). */
export const WEBAUTHN_SCRIPT_PATH = '/assets/webauthn.js';

const NOSCRIPT = html`<noscript><p class="error-summary">This page needs JavaScript to talk to the server. Turn it on
and reload the page.</p></noscript>`;

export interface LayoutOptions {
  /** Route prefix of the account API, e.g. `/auth`; the script sends its requests below it. */
  prefix: string;
  /** The `<h1>` and the start of the `<title>`. */
  title: string;
  /** Which page the script drives (`data-page`); none for pages without a script. */
  page?: string;
  body: SafeHtml;
  /** A wider column, for tables. */
  wide?: boolean;
  /** Loads the WebAuthn library before the page's script: for the pages that offer passkeys, and only those. */
  webauthn?: boolean;
}

/**
 * The frame of every page: one stylesheet and one deferred script, both Gatehouse's own, a heading, and the two
 * live regions the script writes into (a status for confirmations, an alert for errors, which takes the focus).
 */
export function layout({ prefix, title, page, body, wide, webauthn }: LayoutOptions): string {
  // Deferred scripts run in document order: the library is there by the time the page's script starts.
  const library =
    page && webauthn
      ? html`<script src="${prefix}${WEBAUTHN_SCRIPT_PATH}" defer></script>
`
      : '';
  const script = page ? html`${library}<script src="${prefix}${SCRIPT_PATH}" defer></script>` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Gatehouse</title>
<link rel="stylesheet" href="${prefix}${STYLES_PATH}">
${script}
</head>
<body data-api="${prefix}" data-page="${page ?? ''}">
<header class="site"><a href="${prefix}/account">Gatehouse</a></header>
<main id="main"${wide ? html` class="wide"` : ''}>
<h1 id="title">${title}</h1>
${page ? NOSCRIPT : ''}
<div id="notice" class="notice" role="status" tabindex="-1" hidden></div>
<div id="error" class="error-summary" role="alert" tabindex="-1" hidden></div>
${body}
</main>
</body>
</html>
`.value;
}
