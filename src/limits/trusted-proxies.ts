import proxyAddr from 'proxy-addr';
import { ConfigurationError } from '../errors/configuration-error';

/** Whether the hop at `address`, `hop` steps from us (0 = the socket's peer), may speak for the client. */
export type ProxyTrust = (address: string, hop: number) => boolean;

export const trustNobody: ProxyTrust = () => false;

/**
 * Compiles a TRUSTED_PROXIES value, refusing an entry proxy-addr cannot read with a message that says which.
 * Called by `clientIp` (http/client-ip, memoized on the value) and by configuration checks at start.
 */
export function compileTrustedProxies(proxies: string | string[] | undefined): ProxyTrust {
  const entries = Array.isArray(proxies) ? proxies : proxies === undefined ? [] : [proxies];
  const list = entries.map((entry) => String(entry).trim());
  if (list.length === 0) return trustNobody;
  try {
    return proxyAddr.compile(list);
  } catch (error) {
    throw new ConfigurationError(
      `Gatehouse: TRUSTED_PROXIES: ${error instanceof Error ? error.message : String(error)} ` +
        '(use IPs, CIDRs such as 10.0.0.0/8, or loopback, linklocal, uniquelocal)',
    );
  }
}
