/**
 * The dashboard's own xterm.js and its stylesheet, which the `ttyd` app's page (web_terminal.py) loads from inside a
 * kernel: where they are on the host, and where every backend places them in the sandbox or container.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const XTERM_IN_SANDBOX = '/opt/berth/xterm';

let xtermDir: string | null | undefined;

/** Host path → path in the sandbox for each file; empty when the package is not installed. */
export function xtermFiles(): { host: string; inSandbox: string }[] {
  if (xtermDir === undefined) {
    try {
      xtermDir = path.dirname(createRequire(import.meta.url).resolve('@xterm/xterm/package.json'));
    } catch {
      xtermDir = null;
    }
  }
  if (!xtermDir || !existsSync(path.join(xtermDir, 'lib/xterm.js'))) return [];
  return [
    { host: path.join(xtermDir, 'lib/xterm.js'), inSandbox: `${XTERM_IN_SANDBOX}/xterm.js` },
    { host: path.join(xtermDir, 'css/xterm.css'), inSandbox: `${XTERM_IN_SANDBOX}/xterm.css` },
  ];
}
