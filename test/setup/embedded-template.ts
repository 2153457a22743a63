/**
 * Global setup of the projects whose managers run on PGlite: one migrated embedded database, dumped to a file,
 * that each of them starts from (test/helpers/embedded-template.ts). PGlite's initdb costs seconds of
 * WebAssembly per database (5–7 s on a loaded 2-core machine, against 1.4–2 s to load a dump), and the tests
 * start over a hundred. The template is made by the product's own path (a data directory created and migrated by
 * openDatabase), so it is what a first start makes, before the bootstrap. Made once per run: the projects' setups
 * share one promise in the main process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { embeddedDatabase, openDatabase } from '../../server/db';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The dumped template's file (a tar of a migrated PGlite data directory). */
    embeddedTemplate: string;
  }
}

const shared = globalThis as typeof globalThis & { berthEmbeddedTemplate?: Promise<string> };

async function makeTemplate(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-template-'));
  const opened = await openDatabase({ dataDir: path.join(dir, 'db') });
  const dump = await embeddedDatabase(opened.db)!.dumpDataDir('none');
  await opened.close();
  rmSync(path.join(dir, 'db'), { recursive: true, force: true });
  const file = path.join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return file;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const file = await (shared.berthEmbeddedTemplate ??= makeTemplate());
  project.provide('embeddedTemplate', file);
  // Teardowns run once every project's files are done.
  return () => rmSync(path.dirname(file), { recursive: true, force: true });
}
