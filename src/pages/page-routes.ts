import type { PageRoute } from './page-answer';

/** The methods a page answers; the others of a page path are the API's. */
export const PAGE_METHODS = ['GET', 'HEAD'];

/**
 * Finds the page route of a path below `prefix`, matched as the routers match the API routes (case-insensitive,
 * one trailing slash allowed); undefined for a path that is no page. `routes` are paths below the prefix.
 */
export function pageRouteFinder(
  prefix: string,
  routes: Record<string, PageRoute>,
): (path: string) => PageRoute | undefined {
  const base = prefix.replace(/\/+$/, '').toLowerCase();
  const handlers = new Map(Object.entries(routes).map(([route, handler]) => [route.toLowerCase(), handler]));
  // Every API request passes here, and lowering and trimming its path cost 2 µs of a session check on Node 24. A path
  // whose length is no page path's, with or without its trailing slash, is none: lowering keeps the length of every
  // character that can lower to ASCII, and the routes are ASCII.
  const lengths = new Set(
    [...handlers.keys()].flatMap((route) => [base.length + route.length, base.length + route.length + 1]),
  );
  if (base === '' && handlers.has('')) lengths.add(1);
  return (path) => {
    if (!lengths.has(path.length)) return undefined;
    const route = routeBelow(base, path);
    return route === null ? undefined : handlers.get(route);
  };
}

/** An `Allow` header with the page's methods joined to the API's. */
export function withPageMethods(allow: string): string {
  return [...new Set([...allow.split(/\s*,\s*/), ...PAGE_METHODS])].join(', ');
}

function routeBelow(base: string, path: string): string | null {
  const lower = path.toLowerCase().replace(/(.)\/$/, '$1');
  if (lower === base || (base === '' && lower === '/')) return '';
  return lower.startsWith(`${base}/`) ? lower.slice(base.length) : null;
}
