import { expect } from 'chai';
import type { PageRoute } from '../../src/pages/page-answer';
import { pageRouteFinder } from '../../src/pages/page-routes';

const page =
  (name: string): PageRoute =>
  () => ({ status: 200, headers: {}, type: 'text/html', body: name });

describe('pageRouteFinder', () => {
  const login = page('login');
  const root = page('root');
  const confirm = page('confirm');

  it('finds a page in any case, with or without one trailing slash, and nothing else of the same length', () => {
    const find = pageRouteFinder('/auth/', { '': root, '/login': login, '/email-change/confirm': confirm });
    expect(find('/auth/login')).to.equal(login);
    expect(find('/AUTH/Login/')).to.equal(login);
    expect(find('/auth/email-change/CONFIRM')).to.equal(confirm);
    expect(find('/auth')).to.equal(root);
    expect(find('/auth/')).to.equal(root);
    expect(find('/auth/logon')).to.equal(undefined);
    expect(find('/auth/login//')).to.equal(undefined);
    expect(find('/other/log')).to.equal(undefined);
    expect(find('/auth/me')).to.equal(undefined);
  });

  it('under an empty prefix, finds the root page at / and pages below it', () => {
    const find = pageRouteFinder('', { '': root, '/login': login });
    expect(find('/')).to.equal(root);
    expect(find('/LOGIN/')).to.equal(login);
    expect(find('/x')).to.equal(undefined);
  });
});
