import type { SessionView } from '../services/types';

/** A browser or an operating system as read from a user agent; `version` when it names one. */
export interface SoftwareAnswer {
  name: string;
  version: string | null;
}

/** The kinds of device `GET /sessions` reports; a bot or an unknown platform is `null`. */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet', 'tv'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** One session in `GET /sessions`: the JSON of the API, snake_case, instants as ISO strings. */
export interface SessionAnswer {
  id: string;
  current: boolean;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  ip_address: string | null;
  user_agent: string | null;
  browser: SoftwareAnswer | null;
  os: SoftwareAnswer | null;
  device: DeviceType | null;
}

/** What a user agent says of the client, each part null when it does not say. */
export interface ClientDescription {
  browser: SoftwareAnswer | null;
  os: SoftwareAnswer | null;
  device: DeviceType | null;
}

type Bowser = typeof import('bowser');

let bowser: Bowser | undefined;

/**
 * bowser is loaded by the first list of sessions, not with the package: a host whose users never ask for one never
 * loads it (as nodemailer and the OpenAPI generator).
 */
function loadBowser(): Bowser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
  return (bowser ??= require('bowser') as Bowser);
}

const NOTHING: ClientDescription = Object.freeze({ browser: null, os: null, device: null });

/**
 * Reads browser, operating system and device from a `User-Agent`, for display only: the client wrote it, so it
 * names nothing that can be trusted, and a string the parser cannot read is simply undescribed.
 *
 * Parsing costs about 10 µs a user agent, and a user's list repeats the same few: the last `DESCRIBED_LIMIT` read
 * are kept (at most 256 strings of `MAX_USER_AGENT_LENGTH`), frozen, since every answer shares them.
 */
export function describeUserAgent(userAgent: string | null): ClientDescription {
  if (!userAgent) return NOTHING;
  let description = described.get(userAgent);
  if (!description) {
    description = deepFreeze(parseUserAgent(userAgent));
    if (described.size >= DESCRIBED_LIMIT) described.delete(described.keys().next().value!);
    described.set(userAgent, description);
  }
  return description;
}

const DESCRIBED_LIMIT = 256;
const described = new Map<string, ClientDescription>();

function parseUserAgent(userAgent: string): ClientDescription {
  let parsed: ReturnType<Bowser['parse']>;
  try {
    parsed = loadBowser().parse(userAgent);
  } catch {
    return NOTHING;
  }
  const type = parsed.platform?.type;
  return {
    browser: software(parsed.browser),
    os: software(parsed.os),
    device: (DEVICE_TYPES as readonly string[]).includes(type ?? '') ? (type as DeviceType) : null,
  };
}

function deepFreeze(description: ClientDescription): ClientDescription {
  if (description.browser) Object.freeze(description.browser);
  if (description.os) Object.freeze(description.os);
  return Object.freeze(description);
}

function software(details: { name?: string; version?: string } | undefined): SoftwareAnswer | null {
  if (!details?.name) return null;
  return { name: details.name, version: details.version || null };
}

/** A session as `GET /sessions` answers it: never its token, only its public id. */
export function sessionAnswer(view: SessionView): SessionAnswer {
  return {
    id: view.id,
    current: view.current,
    created_at: view.createdAt.toISOString(),
    last_used_at: view.lastUsedAt.toISOString(),
    expires_at: view.expiresAt.toISOString(),
    ip_address: view.ip,
    user_agent: view.userAgent,
    ...describeUserAgent(view.userAgent),
  };
}

/** The body of `GET /sessions`. */
export function sessionsAnswer(views: readonly SessionView[]): { sessions: SessionAnswer[] } {
  return { sessions: views.map(sessionAnswer) };
}
