import { expect } from 'chai';
import { INSTALL_LINES } from '../package/install-line';
import { readDoc } from './markdown';

// The tarball test installs exactly INSTALL_LINES into a fresh project; each page that tells a host what to install
// must quote those lines word for word, so the docs cannot drift from what is proved to compile and run.
const PAGES_BY_DRIVER: Record<keyof typeof INSTALL_LINES, string[]> = {
  koa: ['README.md', 'docs/guides/mounting-koa.md'],
  express: ['README.md', 'docs/guides/mounting-express.md'],
};

describe('docs: the install lines are the ones the tarball test runs', () => {
  for (const [driver, pages] of Object.entries(PAGES_BY_DRIVER)) {
    for (const page of pages) {
      it(`${page} gives the ${driver} host's install lines`, () => {
        const text = readDoc(page);
        for (const line of INSTALL_LINES[driver as keyof typeof INSTALL_LINES]) expect(text).to.include(line);
      });
    }
  }
});
