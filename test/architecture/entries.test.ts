import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const DRIVERS = [
  'better-sqlite3',
  'pg',
  'ioredis',
  'nodemailer',
  'kysely',
  'routing-controllers-openapi/build/generateSpec',
];

/** The packages among DRIVERS that `require(specifier)` loads, in a fresh process (the package requires itself by name). */
function driversLoadedBy(specifier: string, drivers: string[] = DRIVERS): string[] {
  const script = `
    require(${JSON.stringify(specifier)});
    const loaded = Object.keys(require.cache);
    const drivers = ${JSON.stringify(drivers)};
    process.stdout.write(JSON.stringify(drivers.filter((name) => loaded.some((file) => file.includes('/node_modules/' + name + '/') || file.includes('/node_modules/' + name + '.js')))));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe('package entries: a host loads only the driver it uses', () => {
  it('gatehouse loads no database driver, no Redis client, no SMTP library and no OpenAPI generator', () => {
    expect(driversLoadedBy('gatehouse')).to.deep.equal([]);
  });

  it('gatehouse/sqlite loads better-sqlite3 and not pg; gatehouse/postgres the other way round', () => {
    expect(driversLoadedBy('gatehouse/sqlite')).to.deep.equal(['better-sqlite3', 'kysely']);
    expect(driversLoadedBy('gatehouse/postgres')).to.deep.equal(['pg', 'kysely']);
  });

  it('gatehouse/redis loads ioredis alone; gatehouse/testing nothing of the kind', () => {
    expect(driversLoadedBy('gatehouse/redis')).to.deep.equal(['ioredis']);
    expect(driversLoadedBy('gatehouse/testing')).to.deep.equal([]);
  });

  it('gatehouse loads no Express; gatehouse/express loads neither Koa nor Express (the host brings its app)', () => {
    expect(driversLoadedBy('gatehouse', ['express', 'koa'])).to.deep.equal([]);
    expect(driversLoadedBy('gatehouse/express', ['express', 'koa', '@koa/router', 'koa-bodyparser'])).to.deep.equal([]);
  });

  it('no path inside the package resolves (with or without .js): only the entries are its interface', () => {
    const script = `
      const answers = ['gatehouse/build/src/stores/conformance', 'gatehouse/build/src/stores/memory-user-store.js']
        .map((path) => { try { require.resolve(path); return 'resolved'; } catch (error) { return error.code; } });
      process.stdout.write(answers.join(' '));`;
    expect(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })).to.equal(
      'ERR_PACKAGE_PATH_NOT_EXPORTED ERR_PACKAGE_PATH_NOT_EXPORTED',
    );
  });
});
