import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`, as .ci/run does); another binary with GATEHOUSE_TEST_CHROMIUM. */
export const CHROMIUM_PATH = process.env.GATEHOUSE_TEST_CHROMIUM?.trim() || '/usr/bin/chromium';

// Nothing but the page under test: no sandbox (containers), no GPU, no QUIC, and no calls home (updates, sync,
// field trials), so that every request the browser makes is one the test can account for.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let reported = false;

/**
 * For a mocha `before` hook, with the rule of test/support/services.ts: without the browser the suite fails when
 * `CI=true`, and is otherwise skipped with one line saying what to install.
 */
export function requireChromium(context: Mocha.Context): void {
  if (existsSync(CHROMIUM_PATH)) return;
  if (process.env.CI === 'true') {
    throw new Error(
      `Chromium is required when CI=true but ${CHROMIUM_PATH} does not exist (apt-get install -y chromium)`,
    );
  }
  if (!reported) {
    reported = true;
    console.warn(
      `  [skipped] browser tests: no ${CHROMIUM_PATH}; apt-get install -y chromium, or set GATEHOUSE_TEST_CHROMIUM`,
    );
  }
  context.skip();
}

/** A headless Chromium with a fresh profile, removed again by `close()`. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'gatehouse-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1000, height: 800 },
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Collects into `problems` what the pages report as errors or warnings in the console, and uncaught page errors: a
 * CSP or Trusted Types refusal (of the QR code's data: image, of the WebAuthn library) shows there, and fails a test
 * that expects none. Chrome reports every 4xx answer to fetch as a console error too; those are the answers the tests
 * ask for, and are left out.
 */
export function collectConsoleProblems(browser: BrowserContext, problems: string[]): void {
  browser.on('console', (message) => {
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  browser.on('weberror', (error) => problems.push(String(error.error())));
}
