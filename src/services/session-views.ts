import type { SessionRules } from './expiry-rules';
import { sessionStatus } from './expiry-rules';
import { MAX_USER_AGENT_LENGTH, type SessionClient, type SessionView, type StoredSession } from './types';

// What a person sees of their sessions, and when one counts as recently authenticated: the rules of the sessions
// list, kept apart from the account core's flow so that each is read in one place.

/** Where a login came from, as a session (or a login challenge) records it: bounded display text. */
export function recordedClient(client: SessionClient = {}): { ip: string | null; userAgent: string | null } {
  return { ip: boundedText(client.ip, 64), userAgent: boundedText(client.userAgent, MAX_USER_AGENT_LENGTH) };
}

/**
 * Display text from a client: cut rather than refused (a login must not fail over its User-Agent), control
 * characters dropped so a log line or a page cannot be forged with it, and empty as null.
 */
function boundedText(value: string | null | undefined, max: number): string | null {
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return text === '' ? null : [...text].slice(0, max).join('');
}

/** The live sessions among `sessions`, as their owner sees them, newest first, `current` on the one that asked. */
export function liveSessionViews(
  sessions: readonly StoredSession[],
  now: Date,
  rules: SessionRules,
  currentTokenHash?: string,
): SessionView[] {
  return sessions
    .filter((session) => sessionStatus(session, now, rules) !== 'expired')
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((session) => ({
      id: session.id,
      current: session.tokenHash === currentTokenHash,
      createdAt: new Date(session.createdAt),
      lastUsedAt: new Date(session.lastSeenAt),
      expiresAt: new Date(
        Math.min(session.expiresAt.getTime(), session.lastSeenAt.getTime() + rules.sessionIdleTimeoutMs),
      ),
      authenticatedAt: new Date(session.authenticatedAt),
      ip: session.ip,
      userAgent: session.userAgent,
    }));
}

/** Whether the password was proved on this session (login or re-authentication) within the window. */
export function isRecentlyAuthenticated(session: StoredSession, now: Date, windowMs: number): boolean {
  return now.getTime() - session.authenticatedAt.getTime() < windowMs;
}
