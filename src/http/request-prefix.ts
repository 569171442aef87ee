/**
 * Whether a path is under the prefix Gatehouse was limited to, matched as the routers match routes:
 * case-insensitively, whole segments only. No prefix: every path.
 */
export function appliesTo(prefix: string | undefined): (path: string) => boolean {
  const base = prefix?.replace(/\/+$/, '').toLowerCase();
  if (!base) return () => true;
  return (path) => {
    const lower = path.toLowerCase();
    return lower === base || lower.startsWith(`${base}/`);
  };
}
