import { OutboxWorker } from '../outbox/outbox-worker';
import { resolveAccountOptions } from '../services/account-options';
import { AccountService, type AccountServiceDeps } from '../services/account-service';
import { systemClock } from '../services/clock';
import { silentLogger } from '../services/logger';

/**
 * An `AccountService` whose mail the outbox worker delivers from this process, nudged after every change that queues
 * a message; or, with `options.outbox.worker` false, none (another process delivers: `gatehouse worker`). The core
 * itself knows only the `MailDelivery` interface; this is where the worker is chosen.
 *
 * @example
 * const accounts = createAccountService({ store: new MemoryUserStore(), sender, options: { secretKey } });
 */
export function createAccountService(deps: Omit<AccountServiceDeps, 'delivery'>): AccountService {
  const options = resolveAccountOptions(deps.options);
  const delivery = options.outbox.worker
    ? new OutboxWorker({
        store: deps.store,
        sender: deps.sender,
        secretKey: options.secretKey,
        options: options.outbox,
        clock: deps.clock ?? systemClock,
        logger: deps.logger ?? silentLogger,
      })
    : undefined;
  return new AccountService({ ...deps, delivery });
}
