import 'reflect-metadata';
import { createServer, RequestListener } from 'node:http';
import { AddressInfo } from 'node:net';
import { useContainer } from 'routing-controllers';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS, EMAIL_SENDER, resolveAccountService, USER_STORE } from 'gatehouse';
import { SqliteUserStore } from 'gatehouse/sqlite';
import { CapturingSender } from './capturing-sender';
import { runJourney } from './journey';

/**
 * What every host shares whatever its driver: the DI tokens (SQLite store, its own sender, options), a server on a
 * free loopback port, the journey, and a clean shutdown. `mount` builds the driver's app (the one part that
 * differs); the report goes to stdout as one JSON line. Usage: `node main.js <database file>`.
 */
export async function runHost(mount: () => RequestListener): Promise<void> {
  const databaseFile = process.argv[2];
  if (!databaseFile) throw new Error('usage: node main.js <database file>');
  useContainer(Container);
  const store = await SqliteUserStore.open({ filename: databaseFile });
  const sender = new CapturingSender();
  Container.set(USER_STORE, store);
  Container.set(EMAIL_SENDER, sender);
  Container.set(ACCOUNT_OPTIONS, { secretKey: 'package-test-secret-key-0123456789-abcdefghij' });
  const accounts = resolveAccountService();

  const server = createServer(mount());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const report = await runJourney(`http://127.0.0.1:${port}`, sender);
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await accounts.delivery?.stop();
    await accounts.drain();
    await store.close();
  }
}
