/**
 * An address shown to an operator without revealing it: the first character of the local part and of the domain,
 * and the top-level domain (`alice.person@example.com` → `a***@e***.com`). Enough to tell messages apart, not
 * enough to learn who has an account from a terminal or a pasted support log.
 */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  const domain = address.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${address[0]}***@${domain[0] ?? ''}***${tld}`;
}
