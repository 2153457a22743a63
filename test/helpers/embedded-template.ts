/**
 * The migrated embedded database the global setup made (test/setup/embedded-template.ts), for a test manager to
 * start from instead of running initdb. Outside that setup (nothing provided) managers make theirs as usual.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

/** The template, for an in-memory database. */
export function embeddedTemplate(): Blob | undefined {
  const file = inject('embeddedTemplate');
  return file ? new Blob([readFileSync(file)]) : undefined;
}

/** Unpacks the template where a manager on `dataDir` keeps its database, so its first start finds it made. */
export function seedEmbeddedDatabase(dataDir: string): void {
  const file = inject('embeddedTemplate');
  if (!file) return;
  const target = path.join(dataDir, 'db');
  mkdirSync(target, { recursive: true });
  // The dump names its members from the root ("/base/…"): tar strips the leading slash and says so on stderr.
  execFileSync('tar', ['-xf', file, '-C', target], { stdio: ['ignore', 'ignore', 'pipe'] });
}
