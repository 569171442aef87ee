import { createPinoLogger } from '../logging/pino-logger';
import { OutboxWorker } from '../outbox/outbox-worker';
import { buildSender } from '../server/build-sender';
import { parseLogLevel, type ServerConfig } from '../server/config';
import { openStore } from '../server/open-store';

/** How long `gatehouse worker` waits for a send under way at SIGTERM before exiting anyway. */
const STOP_GRACE_MS = 10_000;

/**
 * `gatehouse worker`: delivers queued email until SIGTERM or SIGINT, for deployments that run delivery apart from
 * the web instances (set GATEHOUSE_OUTBOX_WORKER=off on those). It needs the same GATEHOUSE_SECRET_KEY (it opens
 * the sealed tokens), database, SMTP and link settings as the server. Any number may run: claims never overlap.
 */
export async function runWorker(config: ServerConfig, env: NodeJS.ProcessEnv): Promise<number> {
  const logger = createPinoLogger({ level: parseLogLevel(env.GATEHOUSE_LOG_LEVEL) });
  const store = await openStore(config.database, {
    onConnectionError: (error) =>
      logger.warn({ event: 'database', reason: error.message }, 'an idle database connection was lost; replacing it'),
  });
  const sender = buildSender(config);
  const worker = new OutboxWorker({ store, sender, secretKey: config.secretKey, options: config.outbox, logger });
  worker.start();
  // The worker's timers do not hold a process open (a server's must not); here nothing else would, so this does.
  const keepAlive = setInterval(() => undefined, 3_600_000);
  logger.info(
    {
      event: 'worker',
      outcome: 'started',
      database: config.database.kind,
      transport: config.smtpUrl ? 'smtp' : 'console',
    },
    'gatehouse worker: delivering queued email',
  );
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ event: 'shutdown', signal }, 'gatehouse worker: stopping');
  setTimeout(() => {
    logger.error(
      { event: 'shutdown', outcome: 'timeout' },
      'a send did not finish in time; exiting (it is sent again later)',
    );
    process.exit(1);
  }, STOP_GRACE_MS).unref();
  await worker.stop();
  clearInterval(keepAlive);
  await (sender as { close?(): Promise<void> }).close?.();
  await store.close();
  logger.info({ event: 'shutdown', outcome: 'done' }, 'gatehouse worker: stopped');
  return 0;
}
