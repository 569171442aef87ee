/** The options of `gatehouseHttp()`, the same on both drivers. */
export interface GatehouseHttpOptions {
  /** Largest accepted JSON body after decoding, in bytes or as `'16kb'`. Default 16 KiB. */
  bodyLimit?: string | number;
  /**
   * Limit Gatehouse's handling to paths under this prefix (e.g. `'/auth'`): other requests pass through untouched,
   * keeping the host's own body parsing, limits and error handling. Default: every request of the app.
   */
  prefix?: string;
}
