/** What this reads of an @koa/router layer: its path and its methods (none: a `use()` middleware). */
export interface RouterLayer {
  path: string | RegExp;
  methods: string[];
}

/** What @koa/router's `match(path, method)` answers. */
export interface RouterMatch {
  path: RouterLayer[];
  pathAndMethod: RouterLayer[];
  route: boolean;
}

/** The part of an @koa/router instance this touches. */
export interface MatchingRouter {
  stack: RouterLayer[];
  match(path: string, method: string): RouterMatch;
}

/**
 * Makes `router.match` remember, for each path that is exactly a route's own path (`/auth/me`), which layers it
 * matched, so that the next request for that path skips the regular expressions.
 *
 * Why: @koa/router tests a request's path against every route's case-insensitive regular expression, some fifty for
 * the account routes, on every request: 4.6 µs of a session check's CPU on Node 24, more than the rest of the routing.
 *
 * The answer is the one `match` gives: which layers match a path depends on the path alone, and the method is still
 * applied on every call, in the stack's order. Only paths whose every matched layer has that very path are kept, so
 * the cache holds at most one entry per route path, whatever paths clients send; any other path (a parameter, another
 * case, a trailing slash) is matched as before. A route added afterwards empties it.
 */
export function cacheRouteMatches(router: MatchingRouter): void {
  // The router's own `match` if something replaced it already, else its class's, looked up on each call: what
  // instruments the class later still sees every match this does not answer.
  const own = Object.prototype.hasOwnProperty.call(router, 'match') ? router.match : undefined;
  const match = (path: string, method: string): RouterMatch =>
    (own ?? (Object.getPrototypeOf(router) as MatchingRouter).match).call(router, path, method);
  let layersOf = new Map<string, RouterLayer[]>();
  let stackSize = router.stack.length;
  router.match = (path, method) => {
    if (router.stack.length !== stackSize) {
      layersOf = new Map();
      stackSize = router.stack.length;
    }
    const layers = layersOf.get(path);
    if (!layers) {
      const matched = match(path, method);
      if (matched.path.length > 0 && matched.path.every((layer) => layer.path === path)) {
        layersOf.set(path, [...matched.path]);
      }
      return matched;
    }
    // Fresh arrays: the router hands `path` to the context (`ctx.matched`), where a nested router may add to it.
    const pathAndMethod = layers.filter((layer) => layer.methods.length === 0 || layer.methods.includes(method));
    return {
      path: [...layers],
      pathAndMethod,
      route: pathAndMethod.some((layer) => layer.methods.length > 0),
    };
  };
}
