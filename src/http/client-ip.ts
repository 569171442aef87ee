import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';
import { Container } from 'typedi';
import { TRUSTED_PROXIES } from '../di/tokens';
import { compileTrustedProxies, trustNobody, type ProxyTrust } from '../limits/trusted-proxies';

let memo: { proxies: string | string[] | undefined; trust: ProxyTrust } = { proxies: undefined, trust: trustNobody };

/**
 * The address of the client that sent the request. Without TRUSTED_PROXIES this is the socket's peer and
 * `X-Forwarded-For` is ignored (anyone can write it). With them, the forwarded chain is walked from the right, past
 * trusted proxies only, and the first address not trusted is the client: a client that prepends its own
 * `X-Forwarded-For: 1.2.3.4` gets its real address behind it, which the trusted proxy appended. IPv4-mapped IPv6
 * (`::ffff:10.0.0.1`) is reported as plain IPv4. Neither Koa's `ctx.ip` nor Express's `req.ip` is used: trusting
 * proxies, they take the left-most entry (Koa) or follow their own setting (Express), not TRUSTED_PROXIES.
 *
 * @example
 * Container.set(TRUSTED_PROXIES, ['10.0.0.0/8']);   // the load balancer's subnet
 * clientIp(ctx.req);                               // '203.0.113.7' (Express: clientIp(req))
 */
export function clientIp(source: IncomingMessage | { req: IncomingMessage }): string {
  // Node's request, or anything that carries it (a Koa context).
  const req = 'req' in source && source.req ? source.req : (source as IncomingMessage);
  const trust = currentTrust();
  // Trusting nobody, the answer is the socket's peer: proxy-addr would parse X-Forwarded-For only to discard it,
  // on every request (this runs for each one, for the log context).
  const address = trust === trustNobody ? req.socket.remoteAddress : forwardedClient(req, trust);
  if (!address) return 'unknown';
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/**
 * The client as the trusted proxies forwarded it: the first address, from the right, that no trusted proxy holds.
 * An entry that is no IP address (a proxy forwarding garbage, or a client's own text that reached the trusted end of
 * the chain) is no client: the trusted hop that handed it over is taken instead, so that neither the rate limits
 * nor a session or audit event ever hold it as an address.
 */
function forwardedClient(req: IncomingMessage, trust: ProxyTrust): string | undefined {
  const chain = proxyAddr.all(req, trust);
  for (let hop = chain.length - 1; hop >= 0; hop--) {
    if (isIP(chain[hop]) !== 0) return chain[hop];
  }
  return undefined;
}

function currentTrust(): ProxyTrust {
  const proxies = Container.has(TRUSTED_PROXIES) ? (Container.get(TRUSTED_PROXIES) ?? undefined) : undefined;
  if (proxies !== memo.proxies) memo = { proxies, trust: trustOrNobody(proxies) };
  return memo.trust;
}

/**
 * `clientIp` runs before the error renderer (for the log context), so it must not throw: an unreadable list trusts
 * nobody, the safe side, and `resolveAccountService()` reports it (at the host's boot, or on every account route).
 */
function trustOrNobody(proxies: string | string[] | undefined): ProxyTrust {
  try {
    return compileTrustedProxies(proxies);
  } catch {
    return trustNobody;
  }
}
