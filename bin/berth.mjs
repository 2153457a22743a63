#!/usr/bin/env node
// The `berth` command: runs the bundled CLI, building it first on a fresh checkout.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.mjs');
if (!existsSync(cli)) {
  const { buildServer } = await import('../scripts/build.mjs');
  await buildServer();
}
await import(cli);
