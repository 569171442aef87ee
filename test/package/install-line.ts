/**
 * The install commands the docs give a host, kept in one place: `tarball.test.ts` runs exactly these in a fresh
 * project (with `gatehouse` taken from the packed tarball instead of the registry), so a line that lacks a package
 * a host needs fails that test. The docs quote them, and a docs test checks that they match.
 */
export const INSTALL_LINES = {
  /** A Koa host on SQLite: the framework packages Gatehouse plugs into (peer dependencies), then the types. */
  koa: [
    'npm install gatehouse koa routing-controllers typedi class-validator class-transformer reflect-metadata better-sqlite3',
    'npm install --save-dev typescript @types/koa @types/node',
  ],
  /** An Express host on SQLite: the same, with Express and its types in place of Koa's. */
  express: [
    'npm install gatehouse express routing-controllers typedi class-validator class-transformer reflect-metadata better-sqlite3',
    'npm install --save-dev typescript @types/express @types/node',
  ],
} as const;

export type HostDriver = keyof typeof INSTALL_LINES;
