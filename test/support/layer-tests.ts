import type Router from '@koa/router';

/** Counts the regular-expression tests of a router's layers (`layer.match`), from now on. */
export function countLayerTests(router: Router): { count: number } {
  const tests = { count: 0 };
  for (const layer of router.stack) {
    const match = layer.match.bind(layer);
    layer.match = (path: string) => {
      tests.count++;
      return match(path);
    };
  }
  return tests;
}
