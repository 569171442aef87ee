import 'reflect-metadata';
import Koa from 'koa';
import { useKoaServer } from 'routing-controllers';
import { accountGuards, accountRoutes, gatehouseHttp } from 'gatehouse';
import { ReportsController } from '../reports-controller';
import { runHost } from '../run-host';

// A Koa host as the docs mount it: gatehouseHttp() first, the account routes under /auth, its own under /api.
runHost(() => {
  const app = new Koa();
  app.use(gatehouseHttp());
  useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
  useKoaServer(app, {
    routePrefix: '/api',
    controllers: [ReportsController],
    defaultErrorHandler: false,
    ...accountGuards(),
  });
  return app.callback();
}).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
