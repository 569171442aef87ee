/**
 * The layers of an Express app's router: Express 5 keeps them on `app.router`, Express 4 on `app._router`. `_router`
 * is read first because Express 4's `app.router` is a getter that throws ("'app.router' is deprecated!").
 */
export function routeLayersOf(app: unknown): unknown[] | undefined {
  const candidate = app as { _router?: { stack?: unknown }; router?: { stack?: unknown } } | undefined;
  const stack = (candidate?._router ?? candidate?.router)?.stack;
  return Array.isArray(stack) ? stack : undefined;
}
