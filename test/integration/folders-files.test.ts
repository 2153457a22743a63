/**
 * Files inside folders (CONTRACT §9.2–9.3): listing, mkdir, move-file, rename-file (both spellings), delete-files
 * (both spellings), and path traversal tried every way, including symlinks pointing out of the folder and a symlink
 * swapped in while operations run. Never a byte read or written outside the folder.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { FolderRoot, locate, pathComponents } from '../../server/host-path/folder';
import { makeDirectory } from '../../server/storage/folder-operations';

const PROBLEM = 'https://errors.berth.dev/';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let t: TestBerth;
let alice: TestUser;
let name: string;
let root: string;
/** A directory outside every folder, with a file that must survive everything. */
let outside: string;

function expectProblem(res: { status: number; json(): any }, status: number, slug: string) {
  expect(res.status, JSON.stringify(res.json())).toBe(status);
  expect(res.json().type).toBe(PROBLEM + slug);
}

let counter = 0;
const api = (method: string, suffix: string, options: any = {}) => alice.client.request(method, `/folders/${name}${suffix}`, options);

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  outside = mkdtempSync(path.join(tmpdir(), 'berth-outside-'));
});
afterAll(async () => {
  await t?.stop();
  rmSync(outside, { recursive: true, force: true });
});

beforeEach(async () => {
  name = `files-${++counter}`;
  const created = await alice.client.call('POST', '/folders', { body: { name, cloneable: false } });
  root = path.join(t.app.settings.dataDir, 'vfolders', 'volume1', created.id);
  rmSync(outside, { recursive: true, force: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'outside secret');
  mkdirSync(path.join(outside, 'sub'));
  writeFileSync(path.join(outside, 'sub', 'victim.txt'), 'do not delete');
});

function outsideIntact() {
  expect(readdirSync(outside).sort()).toEqual(['secret.txt', 'sub']);
  expect(readdirSync(path.join(outside, 'sub'))).toEqual(['victim.txt']);
  expect(readFileSync(path.join(outside, 'sub', 'victim.txt'), 'utf8')).toBe('do not delete');
}

describe('GET /folders/{name}/files', () => {
  it('lists entries with the exact shape and the legacy string', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'hello');
    mkdirSync(path.join(root, 'dir'), { mode: 0o750 });
    symlinkSync('a.txt', path.join(root, 'link'));
    const res = await api('GET', '/files', { query: { path: '' } });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.items).toEqual([
      { name: 'a.txt', type: 'FILE', size: 5, mode: (statSync(path.join(root, 'a.txt')).mode & 0o777).toString(8), created: expect.stringMatching(ISO), modified: expect.stringMatching(ISO) },
      { name: 'dir', type: 'DIRECTORY', size: expect.any(Number), mode: '750', created: expect.stringMatching(ISO), modified: expect.stringMatching(ISO) },
      { name: 'link', type: 'SYMLINK', size: 5, mode: expect.any(String), created: expect.stringMatching(ISO), modified: expect.stringMatching(ISO) },
    ]);
    expect(JSON.parse(body.files)).toEqual(body.items);
  });

  it('streams a wide directory (several slices) in name order, with names that need escaping, items and files alike', async () => {
    mkdirSync(path.join(root, 'wide'));
    const names = Array.from({ length: 1300 }, (_, i) => `e-${String(i).padStart(4, '0')}`);
    const odd = ['quote"d', 'back\\slash', 'new\nline', 'tab\there', 'ünï-códé', 'emoji-😀', '\u2028sep'];
    for (const n of [...names, ...odd]) writeFileSync(path.join(root, 'wide', n), n);
    const res = await api('GET', '/files', { query: { path: 'wide' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['items', 'files']);
    expect(body.items.map((i: any) => i.name)).toEqual([...names, ...odd].sort());
    const quoted = body.items.find((i: any) => i.name === 'quote"d');
    expect(quoted).toEqual({ name: 'quote"d', type: 'FILE', size: Buffer.byteLength('quote"d'), mode: expect.stringMatching(/^[0-7]{3}$/), created: expect.stringMatching(ISO), modified: expect.stringMatching(ISO) });
    expect(quoted.modified).toBe(statSync(path.join(root, 'wide', 'quote"d')).mtime.toISOString());
    expect(typeof body.files).toBe('string');
    expect(JSON.parse(body.files)).toEqual(body.items);
    expectProblem(await api('GET', '/files', { query: { path: 'wide/e-0000' } }), 400, 'vfolder-operation-failed');
    mkdirSync(path.join(root, 'nothing'));
    expect((await api('GET', '/files', { query: { path: 'nothing' } })).json()).toEqual({ items: [], files: '[]' });
  });

  it('lists a subdirectory, and follows a symlink that stays inside', async () => {
    mkdirSync(path.join(root, 'd1', 'd2'), { recursive: true });
    writeFileSync(path.join(root, 'd1', 'd2', 'x'), 'x');
    symlinkSync('d1/d2', path.join(root, 'shortcut'));
    expect((await api('GET', '/files', { query: { path: 'd1/d2' } })).json().items.map((i: any) => i.name)).toEqual(['x']);
    expect((await api('GET', '/files', { query: { path: 'shortcut' } })).json().items.map((i: any) => i.name)).toEqual(['x']);
    expect((await api('GET', '/files', { query: { path: './d1/' } })).json().items.map((i: any) => i.name)).toEqual(['d2']);
  });

  it('answers 404 for a missing directory and 400 for a file', async () => {
    writeFileSync(path.join(root, 'f'), '');
    expectProblem(await api('GET', '/files', { query: { path: 'missing' } }), 404, 'object-not-found');
    expectProblem(await api('GET', '/files', { query: { path: 'f' } }), 400, 'vfolder-operation-failed');
  });
});

describe('path traversal, every way', () => {
  const traversals = ['..', '../', '../..', 'a/../..', '../' + 'x', '/etc', '/', '%2e%2e', '%2e%2e/%2e%2e/etc', '%252e%252e/etc', '..%2fetc', 'a%00b', 'a\u0000b', '.%2e/x'];

  it.each(traversals)('listing %j is refused with 400', async (p) => {
    expectProblem(await api('GET', '/files', { query: { path: p } }), 400, 'invalid-api-params');
  });

  it.each(traversals)('mkdir %j is refused with 400 and creates nothing', async (p) => {
    expectProblem(await api('POST', '/mkdir', { body: { path: p, parents: true, exist_ok: false } }), 400, 'invalid-api-params');
    expect(readdirSync(root)).toEqual([]);
    outsideIntact();
  });

  it.each(traversals)('move-file, rename-file and delete-files with %j are refused with 400', async (p) => {
    writeFileSync(path.join(root, 'mine.txt'), 'mine');
    expectProblem(await api('POST', '/move-file', { body: { src: 'mine.txt', dst: p } }), 400, 'invalid-api-params');
    expectProblem(await api('POST', '/move-file', { body: { src: p, dst: 'moved' } }), 400, 'invalid-api-params');
    expectProblem(await api('POST', '/rename-file', { body: { target_path: p, new_name: 'x', is_dir: false } }), 400, 'invalid-api-params');
    expectProblem(await api('DELETE', '/delete-files', { body: { files: [p], recursive: true } }), 400, 'invalid-api-params');
    expect(readdirSync(root)).toEqual(['mine.txt']);
    outsideIntact();
  });

  it.each(['..', '../x', 'a/b', '%2e%2e', '.', 'x\u0000'])('rename-file to new_name %j is refused with 400', async (newName) => {
    writeFileSync(path.join(root, 'mine.txt'), 'mine');
    expectProblem(await api('POST', '/rename-file', { body: { target_path: 'mine.txt', new_name: newName, is_dir: false } }), 400, 'invalid-api-params');
    expect(readdirSync(root)).toEqual(['mine.txt']);
  });

  it('a symlink inside the folder pointing out is never followed', async () => {
    symlinkSync(outside, path.join(root, 'abs-out'));
    symlinkSync(path.relative(root, outside), path.join(root, 'rel-out'));
    symlinkSync('../../..', path.join(root, 'up'));
    for (const link of ['abs-out', 'rel-out', 'up']) {
      expectProblem(await api('GET', '/files', { query: { path: link } }), 400, 'invalid-api-params');
      expectProblem(await api('GET', '/files', { query: { path: `${link}/sub` } }), 400, 'invalid-api-params');
      const mk = (await api('POST', '/mkdir', { body: { path: `${link}/created`, parents: true, exist_ok: false } })).json();
      expect(mk.results.success).toEqual([]);
      expect(mk.results.failed).toHaveLength(1);
      expectProblem(await api('POST', '/move-file', { body: { src: `${link}/secret.txt`, dst: 'stolen.txt' } }), 400, 'invalid-api-params');
      expectProblem(await api('DELETE', '/delete-files', { body: { files: [`${link}/sub`], recursive: true } }), 400, 'invalid-api-params');
      // The link itself can be moved, renamed and deleted: those touch the link, not its target.
      expect((await api('POST', '/rename-file', { body: { target_path: link, new_name: `${link}-renamed`, is_dir: false } })).status).toBe(200);
      expect(lstatSync(path.join(root, `${link}-renamed`)).isSymbolicLink()).toBe(true);
      expect((await api('DELETE', '/delete-files', { body: { files: [`${link}-renamed`], recursive: true } })).status).toBe(200);
    }
    expect(readdirSync(root)).toEqual([]);
    outsideIntact();
  });

  it('moving a file into a symlinked directory outside is refused and the file stays', async () => {
    writeFileSync(path.join(root, 'mine.txt'), 'mine');
    symlinkSync(outside, path.join(root, 'out'));
    expectProblem(await api('POST', '/move-file', { body: { src: 'mine.txt', dst: 'out' } }), 400, 'invalid-api-params');
    expectProblem(await api('POST', '/move-file', { body: { src: 'mine.txt', dst: 'out/mine.txt' } }), 400, 'invalid-api-params');
    expect(readFileSync(path.join(root, 'mine.txt'), 'utf8')).toBe('mine');
    outsideIntact();
  });

  it('a directory swapped for a symlink after it was checked: the held descriptor keeps the operation inside', async () => {
    mkdirSync(path.join(root, 'work'));
    const folder = await FolderRoot.open(root);
    try {
      // Check: resolve work/new (the parent "work" is opened by descriptor).
      const located = await locate(folder, pathComponents('work/new', 'path'), 'path');
      // Swap: "work" becomes a symlink to the outside directory.
      renameSync(path.join(root, 'work'), path.join(root, 'work.real'));
      symlinkSync(outside, path.join(root, 'work'));
      // Use: the directory is created in the real directory, not outside.
      const { mkdir } = await import('node:fs/promises');
      await mkdir(`/proc/self/fd/${located.dirFd}/${located.name}`);
      await located.close();
      expect(existsSync(path.join(root, 'work.real', 'new'))).toBe(true);
      outsideIntact();
      // A fresh resolution now meets the symlink and refuses it.
      await expect(makeDirectory(folder, pathComponents('work/again', 'path'), 'path', { parents: false, existOk: false, uid: null })).rejects.toMatchObject({ status: 400 });
    } finally {
      await folder.close();
    }
    outsideIntact();
  });

  /** A child process that swaps `dir` for a symlink to `target` and back, as fast as it can, until killed. */
  function startSwapper(dir: string, target: string) {
    const script = `
      const fs = require('fs');
      const [dir, target] = process.argv.slice(1);
      for (;;) {
        try { fs.renameSync(dir, dir + '.real'); } catch {}
        try { fs.symlinkSync(target, dir); } catch {}
        try { fs.unlinkSync(dir); } catch {}
        try { fs.renameSync(dir + '.real', dir); } catch {}
      }`;
    return spawn(process.execPath, ['-e', script, dir, target], { stdio: 'ignore' });
  }

  async function stopSwapper(child: ReturnType<typeof spawn>) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  it('operations racing a directory/symlink swap never touch the outside', async () => {
    mkdirSync(path.join(root, 'd'));
    writeFileSync(path.join(root, 'd', 'victim.txt'), 'inside');
    const swapper = startSwapper(path.join(root, 'd'), path.join(outside, 'sub'));
    const statuses = new Set<number>();
    try {
      for (let i = 0; i < 150; i++) {
        const results = await Promise.all([
          api('POST', '/mkdir', { body: { path: `d/new-${i}`, parents: false, exist_ok: true } }),
          api('GET', '/files', { query: { path: 'd' } }),
          api('DELETE', '/delete-files', { body: { files: ['d/victim.txt'], recursive: false } }),
          api('POST', '/rename-file', { body: { target_path: 'd/victim.txt', new_name: 'victim2.txt', is_dir: false } }),
          api('POST', '/move-file', { body: { src: 'd/victim2.txt', dst: 'victim.back' } }),
          api('POST', '/move-file', { body: { src: 'victim.back', dst: 'd/victim.txt' } }),
        ]);
        for (const r of results) statuses.add(r.status);
      }
    } finally {
      await stopSwapper(swapper);
    }
    expect([...statuses].every((s) => s < 500), [...statuses].join(',')).toBe(true);
    // The swap was met: some requests went through, some were refused.
    expect(statuses.has(200)).toBe(true);
    expect([...statuses].some((s) => s >= 400)).toBe(true);
    outsideIntact();
  });

  it('recursive deletion racing subdirectories swapped for symlinks never deletes outside', async () => {
    for (let round = 0; round < 5; round++) {
      for (let d = 0; d < 8; d++) {
        mkdirSync(path.join(root, 'tree', `d${d}`), { recursive: true });
        for (let i = 0; i < 100; i++) writeFileSync(path.join(root, 'tree', `d${d}`, `f${i}`), 'x');
        writeFileSync(path.join(root, 'tree', `d${d}`, 'victim.txt'), 'inside');
      }
      const swappers = [0, 3, 6].map((d) => startSwapper(path.join(root, 'tree', `d${d}`), path.join(outside, 'sub')));
      let res;
      try {
        res = await api('DELETE', '/delete-files', { body: { files: ['tree'], recursive: true } });
      } finally {
        for (const s of swappers) await stopSwapper(s);
      }
      expect(res.status).toBeLessThan(500);
      outsideIntact();
      rmSync(path.join(root, 'tree'), { recursive: true, force: true });
    }
  });
});

describe('POST /folders/{name}/mkdir', () => {
  it('creates one directory and answers the results shape', async () => {
    const res = await api('POST', '/mkdir', { body: { path: 'one', parents: true, exist_ok: false } });
    expect(res.json()).toEqual({ results: { success: [{ item: 'one', msg: null }], failed: [] } });
    expect(statSync(path.join(root, 'one')).isDirectory()).toBe(true);
    if (process.getuid?.() === 0) expect(statSync(path.join(root, 'one')).uid).toBe(t.app.settings.kernelUid);
  });

  it('creates a list of directories with parents, reporting each', async () => {
    writeFileSync(path.join(root, 'file'), '');
    const res = (await api('POST', '/mkdir', { body: { path: ['x/y/z', 'w', 'file', 'file/sub'], parents: true, exist_ok: false } })).json();
    expect(res.results.success.map((r: any) => r.item)).toEqual(['x/y/z', 'w']);
    expect(res.results.failed.map((r: any) => r.item)).toEqual(['file', 'file/sub']);
    for (const f of res.results.failed) expect(typeof f.msg).toBe('string');
    expect(statSync(path.join(root, 'x', 'y', 'z')).isDirectory()).toBe(true);
  });

  it('honours parents=false and exist_ok', async () => {
    const noParents = (await api('POST', '/mkdir', { body: { path: 'p/q', parents: false, exist_ok: false } })).json();
    expect(noParents.results.failed.map((r: any) => r.item)).toEqual(['p/q']);
    expect(existsSync(path.join(root, 'p'))).toBe(false);
    await api('POST', '/mkdir', { body: { path: 'e', parents: true, exist_ok: false } });
    expect((await api('POST', '/mkdir', { body: { path: 'e', parents: true, exist_ok: false } })).json().results.failed).toHaveLength(1);
    expect((await api('POST', '/mkdir', { body: { path: 'e', parents: true, exist_ok: true } })).json().results.success).toHaveLength(1);
  });

  it('refuses more than 50 paths with 400 and creates none', async () => {
    const paths = Array.from({ length: 51 }, (_, i) => `d${i}`);
    expectProblem(await api('POST', '/mkdir', { body: { path: paths, parents: true, exist_ok: false } }), 400, 'invalid-api-params');
    expect(readdirSync(root)).toEqual([]);
    const fifty = (await api('POST', '/mkdir', { body: { path: paths.slice(0, 50), parents: true, exist_ok: false } })).json();
    expect(fifty.results.success).toHaveLength(50);
  });
});

describe('move-file and rename-file', () => {
  it('moves a file to a new path and into a directory, never overwriting', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'A');
    writeFileSync(path.join(root, 'b.txt'), 'B');
    mkdirSync(path.join(root, 'dir'));
    expect((await api('POST', '/move-file', { body: { src: 'a.txt', dst: 'dir' } })).json()).toEqual({});
    expect(readFileSync(path.join(root, 'dir', 'a.txt'), 'utf8')).toBe('A');
    expect((await api('POST', '/move-file', { body: { src: 'dir/a.txt', dst: 'c.txt' } })).status).toBe(200);
    expect(readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('A');
    expectProblem(await api('POST', '/move-file', { body: { src: 'c.txt', dst: 'b.txt' } }), 400, 'vfolder-operation-failed');
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('B');
    expect(readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('A');
    expectProblem(await api('POST', '/move-file', { body: { src: 'missing', dst: 'x' } }), 404, 'object-not-found');
  });

  it('moves a directory, but not into itself', async () => {
    mkdirSync(path.join(root, 'd', 'inner'), { recursive: true });
    expectProblem(await api('POST', '/move-file', { body: { src: 'd', dst: 'd/inner' } }), 400, 'vfolder-operation-failed');
    expect((await api('POST', '/move-file', { body: { src: 'd', dst: 'e' } })).status).toBe(200);
    expect(statSync(path.join(root, 'e', 'inner')).isDirectory()).toBe(true);
  });

  it.each(['rename-file', 'rename_file'])('%s renames in place and refuses a clash', async (route) => {
    writeFileSync(path.join(root, 'old.txt'), 'O');
    writeFileSync(path.join(root, 'taken.txt'), 'T');
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'n.txt'), 'N');
    expect((await api('POST', `/${route}`, { body: { target_path: 'old.txt', new_name: 'new.txt', is_dir: false } })).json()).toEqual({});
    expect(readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('O');
    expect((await api('POST', `/${route}`, { body: { target_path: 'sub/n.txt', new_name: 'm.txt', is_dir: false } })).status).toBe(200);
    expect(readFileSync(path.join(root, 'sub', 'm.txt'), 'utf8')).toBe('N');
    expect((await api('POST', `/${route}`, { body: { target_path: 'sub', new_name: 'sub2', is_dir: true } })).status).toBe(200);
    expectProblem(await api('POST', `/${route}`, { body: { target_path: 'new.txt', new_name: 'taken.txt', is_dir: false } }), 400, 'vfolder-operation-failed');
    expect(readFileSync(path.join(root, 'taken.txt'), 'utf8')).toBe('T');
  });
});

describe('delete-files', () => {
  it.each(['delete-files', 'delete_files'])('%s deletes files, and directories only with recursive', async (route) => {
    writeFileSync(path.join(root, 'f1'), '1');
    writeFileSync(path.join(root, 'f2'), '2');
    mkdirSync(path.join(root, 'dir', 'deep'), { recursive: true });
    writeFileSync(path.join(root, 'dir', 'deep', 'x'), 'x');
    expect((await api('DELETE', `/${route}`, { body: { files: ['f1'], recursive: false } })).json()).toEqual({});
    expect(existsSync(path.join(root, 'f1'))).toBe(false);
    expectProblem(await api('DELETE', `/${route}`, { body: { files: ['f2', 'dir'], recursive: false } }), 400, 'vfolder-operation-failed');
    // Checked before anything goes: f2 is still there.
    expect(existsSync(path.join(root, 'f2'))).toBe(true);
    // The query form: a JSON array string.
    expect((await api('DELETE', `/${route}`, { query: { files: JSON.stringify(['f2', 'dir']), recursive: 'true' } })).status).toBe(200);
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses a missing file with 404 before deleting anything, and never deletes the root', async () => {
    writeFileSync(path.join(root, 'keep'), 'k');
    expectProblem(await api('DELETE', '/delete-files', { body: { files: ['keep', 'missing'], recursive: true } }), 404, 'object-not-found');
    expect(existsSync(path.join(root, 'keep'))).toBe(true);
    for (const p of ['', '.', './']) expectProblem(await api('DELETE', '/delete-files', { body: { files: [p], recursive: true } }), 400, 'invalid-api-params');
    expect(existsSync(root)).toBe(true);
  });

  it('does not descend into a mount point inside an unmanaged folder', async () => {
    if (process.getuid?.() !== 0) return;
    const dir = mkdtempSync(path.join(tmpdir(), 'berth-unmanaged-'));
    mkdirSync(path.join(dir, 'tree', 'mnt'), { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', path.join(dir, 'tree', 'mnt')]);
    try {
      writeFileSync(path.join(dir, 'tree', 'mnt', 'on-other-fs'), 'x');
      const admin = await t.createUser({ role: 'superadmin' });
      const folder = `unmanaged-${counter}`;
      await admin.client.call('POST', '/folders', { body: { name: folder, unmanaged_path: dir, cloneable: false } });
      const res = await admin.client.request('DELETE', `/folders/${folder}/delete-files`, { body: { files: ['tree'], recursive: true } });
      expectProblem(res, 400, 'vfolder-operation-failed');
      expect(readFileSync(path.join(dir, 'tree', 'mnt', 'on-other-fs'), 'utf8')).toBe('x');
    } finally {
      execFileSync('umount', [path.join(dir, 'tree', 'mnt')]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
