import {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryId,
  QueryResult,
  RootOperationNode,
  TableNode,
  UnknownRow,
} from 'kysely';

/**
 * A Kysely plugin that holds the result of the first (or `occurrence`th) query matching `matches` until `resume()`: a
 * pause inside a running transaction, right after that statement, with everything it locked still locked.
 *
 * @example
 * const pause = new PauseAfterQuery(deletesFrom('tokens'));
 * const paused = new SqlUserStore(store.db.withPlugin(pause), capabilities);
 */
export class PauseAfterQuery implements KyselyPlugin {
  private readonly matching = new WeakSet<QueryId>();
  private seen = 0;
  private pausedOnce = false;
  private markReached!: () => void;
  private release!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.markReached = resolve));
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  /** @param occurrence Which matching query to pause after: 1 for the first. */
  constructor(
    private readonly matches: (node: RootOperationNode) => boolean,
    private readonly occurrence = 1,
  ) {}

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (this.matches(node) && ++this.seen === this.occurrence) this.matching.add(queryId);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.matching.has(queryId) && !this.pausedOnce) {
      this.pausedOnce = true;
      this.markReached();
      await this.released;
    }
    return result;
  }

  resume(): void {
    this.release();
  }
}

export const isSelect = (node: RootOperationNode): boolean => node.kind === 'SelectQueryNode';

/** Matches `DELETE FROM <table>`. */
export function deletesFrom(table: string): (node: RootOperationNode) => boolean {
  return (node) =>
    node.kind === 'DeleteQueryNode' &&
    node.from.froms.some((from) => TableNode.is(from) && from.table.identifier.name === table);
}

/** Whether `promise` is still pending after `ms` milliseconds. */
export async function stillPendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const outcome = await Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve(pending), ms)),
  ]);
  return outcome === pending;
}
