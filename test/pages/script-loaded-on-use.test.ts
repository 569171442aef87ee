import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const PAGES = join(__dirname, '../../src/pages/account-pages.js');
const LAYOUT = join(__dirname, '../../src/pages/layout.js');

// In a fresh process: the pages' script (a module per page, text to the server) is assembled at its first request.
const PROBE = `
  const { pageAssetRoutes } = require(process.argv[1]);
  const { SCRIPT_PATH } = require(process.argv[2]);
  const loaded = () => Object.keys(require.cache).some((file) => file.endsWith('/pages/assets/pages-script.js'));
  const atStart = loaded();
  const routes = pageAssetRoutes();
  const mounted = loaded();
  const answer = JSON.stringify(routes[SCRIPT_PATH]());
  process.stdout.write(JSON.stringify({ atStart, mounted, served: loaded(), strict: answer.includes('use strict') }));
`;

describe("hosted pages: the pages' script is assembled at its first request", () => {
  it('is not loaded at start nor when the asset routes are made, and is served whole when asked for', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', PROBE, PAGES, LAYOUT], { encoding: 'utf8' }));
    expect(out).to.deep.equal({ atStart: false, mounted: false, served: true, strict: true });
  });
});
