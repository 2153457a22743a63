// `npm run bench`: runs every benchmark in bench/ and prints its figures.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bench');
const only = process.argv[2];
const benches = readdirSync(benchDir).filter((f) => /^[a-z-]+\.mjs$/.test(f) && !['harness.mjs', 'bare-server.mjs', 'browser.mjs'].includes(f));
let failed = 0;
for (const file of benches.filter((f) => !only || f.startsWith(only))) {
  console.log(`\n### bench/${file}`);
  const result = spawnSync(process.execPath, [path.join(benchDir, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
