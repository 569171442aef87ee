/**
 * A page, an asset or a document to send, as data: each driver writes it its own way (`koa/page-middleware`,
 * `express/page-middleware`), so the pages know neither.
 */
export interface PageAnswer {
  status: number;
  /** The Content-Type. */
  type: string;
  body: string;
  /** Headers beside Gatehouse's security headers (a page's own CSP replaces the default one). */
  headers: Record<string, string>;
}

/** What a page reads of its request. */
export interface PageRequest {
  query: URLSearchParams;
}

/** A GET route of the pages, below the prefix. */
export type PageRoute = (request: PageRequest) => PageAnswer | Promise<PageAnswer>;

/** A redirect to another page of the same site. */
export function seeOther(location: string): PageAnswer {
  return {
    status: 303,
    type: 'text/plain; charset=utf-8',
    body: `Redirecting to ${location}.`,
    headers: { Location: location },
  };
}
