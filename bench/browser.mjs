// Shared by the benches that drive the dashboard (dashboard.mjs, pages.mjs): Berth with the manager and the
// dashboard from dist/ and .next/, a plain user, queued sessions, Debian's Chromium through playwright-core (as the
// e2e tests launch it), and the moment an element first shows on a page.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { freePort, serverCommand, serverEnv } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM_PATH = process.env.BERTH_CHROMIUM || '/usr/bin/chromium';
// The same flags as test/helpers/browser.ts.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Berth from dist/ (roles `roles`) on free ports, on `dataDir` (kept) or a fresh temporary one (removed on stop),
 * with `env` added (e.g. BERTH_DATABASE_URL) and `nodeArgs` before the script (e.g. --cpu-prof).
 */
export async function startBerth({ roles = 'manager,web', dataDir, env = {}, admin, nodeArgs = [] }) {
  const [managerPort, webPort] = [await freePort(), await freePort()];
  const ownDir = !dataDir;
  const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'berth-bench-dashboard-'));
  // The dashboard loads .next from the working directory. Berth gets a process group of its own so that a Ctrl-C
  // reaches only the bench, which then ends the sessions before it stops Berth (sessions outlive the manager).
  const child = spawn(process.execPath, serverCommand(root, ...nodeArgs), {
    cwd: root,
    detached: true,
    env: {
      ...process.env, ...serverEnv, NEXT_TELEMETRY_DISABLED: '1', NEXTAUTH_URL: '', BERTH_ROLES: roles, BERTH_DATA_DIR: dir,
      BERTH_MANAGER_PORT: String(managerPort), BERTH_WEB_PORT: String(webPort), BERTH_ADMIN_PASSWORD: admin.password,
      BERTH_ADMIN_ACCESS_KEY: admin.accessKey, BERTH_ADMIN_SECRET_KEY: admin.secretKey, BERTH_LOG_LEVEL: 'warn', ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lastResort = () => child.kill('SIGTERM');
  process.once('exit', lastResort); // a detached Berth must not outlive an unexpected end of the bench
  const stop = async () => {
    process.off('exit', lastResort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (/Berth ready/.test(output)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`Berth exited (${code}) before ready:\n${output}`)));
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { managerUrl: `http://127.0.0.1:${managerPort}`, webUrl: `http://127.0.0.1:${webPort}`, dataDir: dir, pid: child.pid, stop };
}

/** A GraphQL call as the given client; throws on errors. */
export async function gql(client, query) {
  const answer = await client.call('POST', '/admin/gql', { body: { query } });
  if (answer.errors) throw new Error(`GraphQL: ${JSON.stringify(answer.errors)}`);
  return answer.data;
}

/**
 * A plain user (what most of the dashboard's users are) through the admin GraphQL API, with the rate limit of
 * their keypair lifted: the benches send thousands of requests.
 */
export async function createUser(admin, { email, username, password }) {
  const created = await gql(admin, `mutation { create_user(email: "${email}", props: { username: "${username}", password: "${password}" }) { ok msg user { main_access_key } } }`);
  const accessKey = created.create_user.user?.main_access_key;
  if (!accessKey) throw new Error(`create_user: ${JSON.stringify(created)}`);
  const { keypair } = await gql(admin, `query { keypair(access_key: "${accessKey}") { secret_key } }`);
  await gql(admin, `mutation { modify_keypair(access_key: "${accessKey}", props: { rate_limit: null }) { ok } }`);
  return { accessKey, secretKey: keypair.secret_key };
}

/** Runs `task(i)` for i < count, `concurrency` at a time. */
export async function inParallel(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * `count` sessions that stay PENDING: a scaling group with no agents, open to the default domain, where the user
 * queues them (enqueueOnly). The session list shows them among the live ones, as a busy cluster's queue would.
 */
export async function queueSessions(admin, user, count, prefix = 'bench-queued') {
  await gql(admin, 'mutation { create_scaling_group(name: "bench-empty", props: { description: "no agents" }) { ok msg } }');
  await gql(admin, 'mutation { associate_scaling_group_with_domain(domain: "default", scaling_group: "bench-empty") { ok msg } }');
  await inParallel(count, 8, (i) => user.call('POST', '/session', { body: { name: `${prefix}-${i}`, image: 'shell', enqueueOnly: true, config: { scaling_group: 'bench-empty' } } }));
  const { status } = await user.call('GET', `/session/${prefix}-0`);
  if (status !== 'PENDING') throw new Error(`a queued session is ${status}, not PENDING`);
}

export async function launchBrowser() {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` or set BERTH_CHROMIUM.`);
  const profileDir = mkdtempSync(path.join(tmpdir(), 'berth-chromium-'));
  try {
    // Playwright's own signal handlers would exit the process at once; the bench's cleanup closes the browser.
    const context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 },
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return { context, page, close: async () => { await context.close(); rmSync(profileDir, { recursive: true, force: true }); } };
  } catch (err) {
    rmSync(profileDir, { recursive: true, force: true });
    throw err;
  }
}

export async function signIn(page, webUrl, { email, password }) {
  await page.goto(`${webUrl}/login`);
  await page.getByLabel('Email or username').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${webUrl}/`);
}

/**
 * Installed in every document before its own scripts (context.addInitScript(noteVisible, {selector, key})): notes
 * in window[key], on the page's clock (0 = the navigation's start), the first moment an element matching
 * `selector` is in the DOM with a box and not hidden (Playwright's "visible"). Playwright's own wait polls with a
 * backoff of up to half a second, too coarse to time with; it only tells us when to read this.
 */
export function noteVisible({ selector, key }) {
  window[key] = null;
  const check = (observer) => {
    const el = document.querySelector(selector);
    if (!el) return;
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && el.checkVisibility({ visibilityProperty: true })) {
      window[key] = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(() => check(observer));
  observer.observe(document, { childList: true, subtree: true, attributes: true });
}
