import { expect } from 'chai';
import type { Context } from 'koa';
import { Container } from 'typedi';
import { TRUSTED_PROXIES } from '../../src/di/tokens';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { clientIp } from '../../src/http/client-ip';
import { compileTrustedProxies } from '../../src/limits/trusted-proxies';
import { ipLimitKey } from '../../src/limits/ip-key';

/** Just what clientIp reads: the socket's peer and the forwarded header. */
function request(remoteAddress: string | undefined, forwardedFor?: string): Context {
  const headers: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return { req: { socket: { remoteAddress }, headers } } as unknown as Context;
}

describe('client IP: X-Forwarded-For only from trusted proxies (L3)', () => {
  afterEach(() => Container.remove(TRUSTED_PROXIES));

  it('is the socket peer, and ignores X-Forwarded-For, when no proxy is trusted (the default)', () => {
    expect(clientIp(request('203.0.113.9'))).to.equal('203.0.113.9');
    expect(clientIp(request('203.0.113.9', '1.2.3.4'))).to.equal('203.0.113.9');
    expect(clientIp(request('127.0.0.1', '1.2.3.4, 5.6.7.8'))).to.equal('127.0.0.1');
  });

  it('behind a trusted proxy, takes the right-most address that is not a trusted proxy', () => {
    Container.set(TRUSTED_PROXIES, ['10.0.0.0/8']);
    // The proxy (10.0.0.2) appended the real client; whatever the client wrote to the left is not believed.
    expect(clientIp(request('10.0.0.2', '198.51.100.7'))).to.equal('198.51.100.7');
    expect(clientIp(request('10.0.0.2', '1.2.3.4, 198.51.100.7'))).to.equal('198.51.100.7');
    // Two trusted hops (10.0.0.5 forwarded to 10.0.0.2): still the first untrusted one from the right.
    expect(clientIp(request('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.5'))).to.equal('198.51.100.7');
    // A request that did not come through the proxy cannot claim another address.
    expect(clientIp(request('203.0.113.9', '198.51.100.7'))).to.equal('203.0.113.9');
    // Through the proxy without the header: the proxy itself is the client.
    expect(clientIp(request('10.0.0.2'))).to.equal('10.0.0.2');
  });

  it('accepts proxy-addr names and a single string, and reports IPv4-mapped IPv6 as IPv4', () => {
    Container.set(TRUSTED_PROXIES, 'loopback');
    expect(clientIp(request('::ffff:127.0.0.1', '198.51.100.7'))).to.equal('198.51.100.7');
    expect(clientIp(request('::1', '2001:db8::7'))).to.equal('2001:db8::7');
    Container.remove(TRUSTED_PROXIES);
    expect(clientIp(request('::ffff:127.0.0.1', '198.51.100.7'))).to.equal('127.0.0.1');
  });

  it('follows changes of the token, and an unreadable list trusts nobody rather than throwing', () => {
    Container.set(TRUSTED_PROXIES, ['10.0.0.2']);
    expect(clientIp(request('10.0.0.2', '198.51.100.7'))).to.equal('198.51.100.7');
    Container.set(TRUSTED_PROXIES, ['10.0.0.3']);
    expect(clientIp(request('10.0.0.2', '198.51.100.7'))).to.equal('10.0.0.2');
    Container.set(TRUSTED_PROXIES, ['not-an-ip']);
    expect(clientIp(request('10.0.0.2', '198.51.100.7'))).to.equal('10.0.0.2');
    expect(() => compileTrustedProxies(['not-an-ip'])).to.throw(ConfigurationError, /TRUSTED_PROXIES.*not-an-ip/);
  });

  it('answers "unknown" for a request whose socket is already gone', () => {
    expect(clientIp(request(undefined))).to.equal('unknown');
  });
});

describe('per-IP limit keys', () => {
  it('keep IPv4 addresses and group IPv6 by /64, however the address is written', () => {
    expect(ipLimitKey('198.51.100.7')).to.equal('198.51.100.7');
    expect(ipLimitKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(ipLimitKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).to.equal('2001:db8:1:2::/64');
    expect(ipLimitKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(ipLimitKey('::1')).to.equal('0:0:0:0::/64');
    expect(ipLimitKey('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    expect(ipLimitKey('64:ff9b::198.51.100.7')).to.equal('64:ff9b:0:0::/64');
    expect(ipLimitKey('unknown')).to.equal('unknown');
  });
});
