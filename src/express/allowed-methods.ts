import type { IncomingMessage } from 'node:http';
import { routeLayersOf } from './route-table';

interface RouteLayer {
  route?: { path?: unknown; methods?: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/**
 * The methods the app's routes take on a path, in `Allow` form and in the order Koa's router gives them (a GET
 * route brings HEAD, before it). Express answers a wrong method with 404 where Koa's router says 405 with `Allow`;
 * reading its route table gives the same answers on both.
 */
export function allowedMethods(req: IncomingMessage, path: string): string[] {
  const stack = routeLayersOf((req as { app?: unknown }).app);
  if (!stack) return [];
  const methods = new Set<string>();
  for (const layer of stack as RouteLayer[]) {
    if (!layer.route?.methods || typeof layer.match !== 'function' || !layer.match(path)) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (!on || method === '_all') continue;
      if (method === 'get') methods.add('HEAD');
      methods.add(method.toUpperCase());
    }
  }
  return [...methods];
}
