import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MIN_SECRET_KEY_BYTES } from '../services/account-options';

/** A configuration problem, phrased as what to fix; `main` prints it as one line and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type DatabaseConfig = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; connectionString: string };

export interface ServerConfig {
  port: number;
  host: string;
  prefix: string;
  secretKey: string;
  /** True when the key was generated for development rather than configured. */
  secretKeyGenerated: boolean;
  database: DatabaseConfig;
  smtpUrl?: string;
  emailFrom: string;
  publicUrl: string;
  production: boolean;
}

type Env = Record<string, string | undefined>;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/gatehouse.db';
/** Where a development secret key is kept between restarts, so sessions survive them. */
export const GENERATED_SECRET_FILE = './data/secret.key';

/**
 * Reads the environment once, validates every variable, and returns the configuration or throws a ConfigError
 * naming the variable and what to do. This module is the only reader of `process.env` (through `main` and the CLI).
 */
export interface LoadConfigOptions {
  cwd?: string;
  warn?: (message: string) => void;
  /**
   * For tools that never hash a token (the admin CLI): without a configured key, use a throwaway one instead of
   * generating and keeping a development key. A configured key is still validated.
   */
  ephemeralSecret?: boolean;
}

export function loadConfig(env: Env, options: LoadConfigOptions = {}): ServerConfig {
  const cwd = options.cwd ?? process.cwd();
  const production = env.NODE_ENV === 'production';
  const port = parsePort(env.PORT);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const checked = {
    port,
    host,
    prefix: parsePrefix(env.GATEHOUSE_PREFIX),
    database: parseDatabaseUrl(nonEmpty(env.GATEHOUSE_DATABASE_URL) ?? DEFAULT_DATABASE_URL, cwd),
    smtpUrl: parseSmtpUrl(env.GATEHOUSE_SMTP_URL),
    emailFrom: parseEmailFrom(env.GATEHOUSE_EMAIL_FROM),
    publicUrl: parsePublicUrl(env.GATEHOUSE_PUBLIC_URL, host, port),
    production,
  };
  // Last, so that a configuration refused for another reason writes no key file and prints no warning.
  const { secretKey, generated } =
    options.ephemeralSecret && env.GATEHOUSE_SECRET_KEY === undefined
      ? { secretKey: randomBytes(48).toString('base64url'), generated: true }
      : loadSecretKey(env.GATEHOUSE_SECRET_KEY, production, cwd, options.warn);
  return { ...checked, secretKey, secretKeyGenerated: generated };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function parsePort(raw: string | undefined): number {
  const value = nonEmpty(raw);
  if (value === undefined) return 8000;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(`PORT must be a number from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}

function parsePrefix(raw: string | undefined): string {
  if (raw === undefined) return '/auth';
  const value = raw.trim().replace(/\/+$/, '');
  if (value !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new ConfigError(
      `GATEHOUSE_PREFIX must be empty or a path like /auth (letters, digits, "._~-" segments), got "${raw}"`,
    );
  }
  return value;
}

function loadSecretKey(
  raw: string | undefined,
  production: boolean,
  cwd: string,
  warn: (message: string) => void = () => {},
): { secretKey: string; generated: boolean } {
  if (raw !== undefined && raw.trim() === '') {
    // Most often `GATEHOUSE_SECRET_KEY=$SOMETHING_UNSET`: a mistake to report, not a request for a generated key.
    throw new ConfigError('GATEHOUSE_SECRET_KEY is set but empty; set it to at least 32 random bytes or unset it');
  }
  if (raw !== undefined) {
    const bytes = Buffer.byteLength(raw);
    if (bytes < MIN_SECRET_KEY_BYTES) {
      throw new ConfigError(
        `GATEHOUSE_SECRET_KEY is ${bytes} bytes; it must be at least ${MIN_SECRET_KEY_BYTES} random bytes ` +
          '(generate one with: openssl rand -base64 48)',
      );
    }
    return { secretKey: raw, generated: false };
  }
  if (production) {
    throw new ConfigError(
      'GATEHOUSE_SECRET_KEY is required when NODE_ENV=production (generate one with: openssl rand -base64 48)',
    );
  }
  const file = resolve(cwd, GENERATED_SECRET_FILE);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(kept) >= MIN_SECRET_KEY_BYTES) return { secretKey: kept, generated: true };
  }
  const generated = randomBytes(48).toString('base64url');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generated + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  warn(`GATEHOUSE_SECRET_KEY is not set: generated a development key in ${GENERATED_SECRET_FILE}; set it in production`);
  return { secretKey: generated, generated: true };
}

function parseDatabaseUrl(url: string, cwd: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('GATEHOUSE_DATABASE_URL "sqlite:" needs a file, e.g. sqlite:./data/gatehouse.db');
    return { kind: 'sqlite', filename: path === ':memory:' ? path : resolve(cwd, path) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', connectionString: url };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new ConfigError(
    `GATEHOUSE_DATABASE_URL has ${scheme ? `an unknown scheme "${scheme}:"` : 'no scheme'}; ` +
      'use sqlite:<file> (e.g. sqlite:./data/gatehouse.db) or postgres://user@host/db',
  );
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('GATEHOUSE_SMTP_URL is not a URL; use smtp://user:pass@host:port or smtps://...');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`GATEHOUSE_SMTP_URL must start with smtp:// or smtps://, got "${url.protocol}//"`);
  }
  return value;
}

function parseEmailFrom(raw: string | undefined): string {
  const value = nonEmpty(raw) ?? 'Gatehouse <no-reply@localhost>';
  if (/[\r\n]/.test(value) || !value.includes('@')) {
    throw new ConfigError('GATEHOUSE_EMAIL_FROM must be one address such as "Gatehouse <no-reply@example.com>"');
  }
  return value;
}

function parsePublicUrl(raw: string | undefined, host: string, port: number): string {
  const configured = nonEmpty(raw);
  const value = configured ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      configured
        ? 'GATEHOUSE_PUBLIC_URL must be an absolute URL such as https://accounts.example.com'
        : `HOST "${host}" is not a valid host name or IP address`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('GATEHOUSE_PUBLIC_URL must start with http:// or https://');
  }
  if (url.search || url.hash) throw new ConfigError('GATEHOUSE_PUBLIC_URL must not carry a query or fragment');
  return value.replace(/\/+$/, '');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `GATEHOUSE_LOG_LEVEL`; read before the rest of the configuration, so that its warnings are logged at that level. */
export function parseLogLevel(raw: string | undefined): LogLevel {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`GATEHOUSE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return value as LogLevel;
}
