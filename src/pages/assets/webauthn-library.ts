import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The browser side of passkeys, `@simplewebauthn/browser`'s UMD bundle (global `SimpleWebAuthnBrowser`), served from
 * Gatehouse itself (`WEBAUTHN_SCRIPT_PATH`) so the pages make no outside request and the CSP stays `script-src
 * 'self'`. Only the pages that run ceremonies load it.
 */
let library: string | undefined;

/**
 * The bundle's text, read on the first request for it and kept: not at start, since a server without passkeys
 * should not hold it in memory. The package's exports map hides `dist/`; its entry point is `script/index.js`, two
 * folders below the package's root.
 */
export function webauthnLibrary(): string {
  library ??= readFileSync(
    join(dirname(dirname(require.resolve('@simplewebauthn/browser'))), 'dist', 'bundle', 'index.umd.min.js'),
    'utf8',
  );
  return library;
}
