import 'reflect-metadata';
import express from 'express';
import { useExpressServer } from 'routing-controllers';
import { accountGuards, gatehouseErrors, mountAccountRoutes } from 'gatehouse/express';
import { ReportsController } from '../reports-controller';
import { runHost } from '../run-host';

// An Express host as the docs mount it: the account routes under /auth, its own under /api, gatehouseErrors() last.
runHost(() => {
  const app = express();
  mountAccountRoutes(app, { prefix: '/auth' });
  useExpressServer(app, {
    routePrefix: '/api',
    controllers: [ReportsController],
    defaultErrorHandler: false,
    ...accountGuards(),
  });
  app.use(gatehouseErrors());
  return app;
}).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
