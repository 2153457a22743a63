/**
 * Launches Debian's Chromium for the end-to-end tests through playwright-core (no browser download: the
 * system's /usr/bin/chromium, or BERTH_CHROMIUM). Each launch gets its own profile directory, removed on close.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { chromium, type BrowserContext, type Page, type Response } from 'playwright-core';

export const CHROMIUM_PATH = process.env.BERTH_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` or set BERTH_CHROMIUM.`);
  }
  const profileDir = mkdtempSync(path.join(tmpdir(), 'berth-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

export interface RecordedResponse {
  url: string;
  status: number;
  resourceType: string;
  /** The body as text; null when the browser kept none (redirects, evicted resources). */
  body: string | null;
}

/**
 * Records every response a context receives, reading each body as it arrives (before a navigation can evict
 * it), so a test can inspect everything the browser was ever given.
 */
export function recordResponses(context: BrowserContext): { settled(): Promise<RecordedResponse[]> } {
  const pending: Promise<RecordedResponse>[] = [];
  context.on('response', (response: Response) => {
    const entry = { url: response.url(), status: response.status(), resourceType: response.request().resourceType() };
    // An event stream never ends; its events are checked by the tests that open one.
    if ((response.headers()['content-type'] ?? '').includes('text/event-stream')) {
      pending.push(Promise.resolve({ ...entry, body: null }));
      return;
    }
    pending.push(
      response.text().then(
        (body) => ({ ...entry, body }),
        () => ({ ...entry, body: null }),
      ),
    );
  });
  return { settled: () => Promise.all(pending) };
}

/** The theme's page background in each color scheme (components/theme/theme.ts). */
export const THEME_BACKGROUND = { light: 'rgb(245, 247, 250)', dark: 'rgb(15, 20, 25)' };

/**
 * Saves a screenshot of the page in the dark color scheme, after checking that the page really turned dark (it
 * follows prefers-color-scheme), then returns it to light. Transitions are completed for the shot, so no control
 * is caught halfway between the two schemes; `ready` names what must show first (parts that switch in script).
 */
export async function screenshotDark(page: Page, file: string, options: { ready?: string } = {}): Promise<void> {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(await background()).toBe(THEME_BACKGROUND.light);
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    expect(await background()).toBe(THEME_BACKGROUND.dark);
    if (options.ready) await page.locator(options.ready).first().waitFor();
    await page.screenshot({ path: file, animations: 'disabled' });
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}
