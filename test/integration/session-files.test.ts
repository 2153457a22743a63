/**
 * Files of running sessions (list, upload, download, download_single), commits and image import, on real
 * sandboxes: shapes, limits, ownership, and every way out of /home/work that a path or a symlink could take.
 */
import { existsSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';
import type { BerthClient } from '../../server/client/client';
import { signRequest } from '../../server/client/sign';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
const started: { client: BerthClient; name: string }[] = [];

beforeAll(async () => {
  t = await startTestBerth();
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(async () => {
  for (const s of started) await s.client.request('DELETE', `/session/${s.name}`, { query: { forced: 'true' } });
  await t?.stop();
});

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function startSession(user: { client: BerthClient }, image = 'python', prefix = 'files'): Promise<string> {
  const name = uniqueName(prefix);
  const res = await user.client.request('POST', '/session', { body: { name, image, group: 'default' } });
  expect(res.status, res.text).toBe(200);
  expect(res.json().status).toBe('RUNNING');
  started.push({ client: user.client, name });
  return name;
}

async function destroy(user: { client: BerthClient }, name: string): Promise<void> {
  await user.client.request('DELETE', `/session/${name}`);
  const at = started.findIndex((s) => s.name === name);
  if (at >= 0) started.splice(at, 1);
}

async function run(user: TestUser, name: string, code: string): Promise<string> {
  let result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'query', runId: null, code } })).result;
  let out = result.console.map((c: [string, string]) => c[1]).join('');
  while (result.status === 'continued') {
    result = (await user.client.call('POST', `/session/${name}`, { body: { mode: 'continue', runId: result.runId, code: '' } })).result;
    out += result.console.map((c: [string, string]) => c[1]).join('');
  }
  return out;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}

/** A multipart/form-data body with one file part per entry (field `src`, filename = destination). */
function formData(files: { name: string; data: Buffer | string }[], field = 'src') {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.from(file.data));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function upload(user: TestUser, name: string, files: { name: string; data: Buffer | string }[]) {
  return user.client.request('POST', `/session/${name}/upload`, formData(files));
}

/** The host directory that is /home/work of a session's main kernel. */
async function scratchOf(sessionName: string, owner: TestUser): Promise<string> {
  const info = await owner.client.call('GET', `/session/${sessionName}`);
  void info;
  const row = await t.app.db
    .selectFrom('kernels as k')
    .innerJoin('sessions as s', 's.id', 'k.session_id')
    .select(['k.id', 'k.agent_id'])
    .where('s.name', '=', sessionName)
    .where('s.access_key', '=', owner.accessKey)
    .where('s.status', '=', 'RUNNING')
    .where('k.cluster_role', '=', 'main')
    .executeTakeFirstOrThrow();
  return t.app.agents.get(row.agent_id!)!.scratchDir(row.id);
}

/** Splits a multipart/mixed body into its parts (headers, body). */
function splitMultipart(body: Buffer, contentType: string): { headers: Record<string, string>; body: Buffer }[] {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)![2];
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', afterDelimiter);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd);
    const headerText = body.subarray(afterDelimiter + 2, headerEnd).toString();
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    parts.push({ headers, body: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}

async function untar(data: Buffer): Promise<Map<string, { type: string; content: Buffer; linkname: string }>> {
  const entries = new Map<string, { type: string; content: Buffer; linkname: string }>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        entries.set(header.name, { type: header.type, content: Buffer.concat(chunks), linkname: header.linkname ?? '' });
        next();
      });
      stream.resume();
    });
    extract.on('finish', () => resolve());
    extract.on('error', reject);
  });
  Readable.from([data]).pipe(extract as unknown as NodeJS.WritableStream);
  await done;
  return entries;
}

/** Starts a signed GET, reads one chunk of the answer, then hangs up. */
function abortAfterFirstChunk(user: TestUser, uri: string): Promise<void> {
  const url = new URL(t.url);
  const headers = { ...signRequest({ method: 'GET', uri, host: url.host, accessKey: user.accessKey, secretKey: user.secretKey }), Host: url.host };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: uri, headers }, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
    req.end();
  });
}

/** Descriptors of this process (the manager runs in it) that point into a directory. */
function openDescriptorsUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return open;
}

const problemType = (res: { json(): any }) => res.json().type as string;

describe('session files', () => {
  let name: string;
  let other: string;
  let scratch: string;
  let otherScratch: string;
  const binary = randomBytes(300 * 1024);

  beforeAll(async () => {
    name = await startSession(alice);
    other = await startSession(bob);
    scratch = await scratchOf(name, alice);
    otherScratch = await scratchOf(other, bob);
    expect((await upload(bob, other, [{ name: 'secret.txt', data: 'bob-secret' }])).status).toBe(200);
  });
  afterAll(async () => {
    await destroy(alice, name);
    await destroy(bob, other);
  });

  it('uploads files (nested paths too), owned by the kernel user, and the kernel reads and writes them', async () => {
    const res = await upload(alice, name, [
      { name: 'hello.txt', data: 'hello from upload\n' },
      { name: 'sub/deep/nested.txt', data: 'nested' },
      { name: '/home/work/abs.txt', data: 'absolute' },
      { name: 'blob.bin', data: binary },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({});
    expect(readFileSync(path.join(scratch, 'sub/deep/nested.txt'), 'utf8')).toBe('nested');
    expect(readFileSync(path.join(scratch, 'abs.txt'), 'utf8')).toBe('absolute');
    if (process.getuid?.() === 0) {
      expect(statSync(path.join(scratch, 'hello.txt')).uid).toBe(t.app.settings.kernelUid);
      expect(statSync(path.join(scratch, 'sub/deep')).uid).toBe(t.app.settings.kernelUid);
    }
    // No temporary files are left behind.
    expect(readdirSync(scratch).filter((f) => f.includes('berth-upload'))).toEqual([]);
    const out = await run(alice, name, "print(open('hello.txt').read(), end='')\nopen('sub/deep/nested.txt', 'a').write('+kernel')\nprint(open('sub/deep/nested.txt').read())");
    expect(out).toBe('hello from upload\nnested+kernel\n');
  });

  it('replaces an existing file atomically', async () => {
    expect((await upload(alice, name, [{ name: 'replace.txt', data: 'one' }])).status).toBe(200);
    expect((await upload(alice, name, [{ name: 'replace.txt', data: 'two-two' }])).status).toBe(200);
    const res = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'replace.txt' } });
    expect(res.text).toBe('two-two');
  });

  it('lists a directory with the contract shape', async () => {
    const res = await alice.client.request('GET', `/session/${name}/files`);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['abspath', 'errors', 'files', 'folder_path']);
    expect(body.folder_path).toBe('/home/work');
    expect(body.errors).toBe('');
    expect(Array.isArray(body.files)).toBe(true);
    const hello = body.files.find((f: any) => f.filename === 'hello.txt');
    expect(Object.keys(hello).sort()).toEqual(['atime', 'ctime', 'filename', 'mode', 'mtime', 'size']);
    expect(hello).toMatchObject({ mode: '-rw-r--r--', size: 'hello from upload\n'.length });
    for (const key of ['ctime', 'mtime', 'atime']) {
      expect(typeof hello[key]).toBe('number');
      expect(Math.abs(hello[key] - Date.now() / 1000)).toBeLessThan(600);
    }
    expect(body.files.find((f: any) => f.filename === 'sub').mode).toBe('drwxr-xr-x');

    const sub = (await alice.client.request('GET', `/session/${name}/files`, { query: { path: 'sub/deep' } })).json();
    expect(sub).toMatchObject({ folder_path: '/home/work/sub/deep', abspath: 'sub/deep', errors: '' });
    expect(sub.files.map((f: any) => f.filename)).toEqual(['nested.txt']);
    const absolute = (await alice.client.request('GET', `/session/${name}/files`, { query: { path: '/home/work/sub' } })).json();
    expect(absolute).toMatchObject({ folder_path: '/home/work/sub', abspath: '/home/work/sub' });
    expect(absolute.files.map((f: any) => f.filename)).toEqual(['deep']);
  });

  it('answers 404 for a missing directory and 400 for a file given as a directory', async () => {
    const missing = await alice.client.request('GET', `/session/${name}/files`, { query: { path: 'no-such-dir' } });
    expect(missing.status).toBe(404);
    expect(problemType(missing)).toContain('object-not-found');
    const file = await alice.client.request('GET', `/session/${name}/files`, { query: { path: 'hello.txt' } });
    expect(file.status).toBe(400);
  });

  it('round-trips bytes through upload and download_single (GET and POST)', async () => {
    const res = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'blob.bin' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.compare(res.body, binary)).toBe(0);
    const posted = await alice.client.request('POST', `/session/${name}/download_single`, { body: { file: '/home/work/sub/deep/nested.txt' } });
    expect(posted.status).toBe(200);
    expect(posted.text).toBe('nested+kernel');
    expect((await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'missing.txt' } })).status).toBe(404);
    expect((await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'sub' } })).status).toBe(400);
  });

  it('refuses download_single of a file over 100 MiB with 400, and download streams it', async () => {
    await run(alice, name, "f = open('huge.bin', 'wb')\nf.truncate(100 * 1024 * 1024 + 1)\nf.close()\nf = open('mid.bin', 'wb')\nf.truncate(50 * 1024 * 1024)\nf.close()");
    const res = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'huge.bin' } });
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(/download_single/);
    const archive = await alice.client.request('GET', `/session/${name}/download`, { query: { files: ['huge.bin'] } });
    expect(archive.status).toBe(200);
    expect(archive.body.length).toBeGreaterThan(100 * 1024 * 1024);
    // A client that hangs up mid-download leaves no descriptor open on the file.
    for (const route of ['download_single?file=mid.bin', `download?files=${encodeURIComponent('["huge.bin"]')}`]) {
      await abortAfterFirstChunk(alice, `/session/${name}/${route}`);
    }
    await waitFor(async () => openDescriptorsUnder(scratch).length === 0, 5_000);
    await run(alice, name, "import os\nos.remove('huge.bin')\nos.remove('mid.bin')");
  });

  it('accepts a file of exactly 1 MiB', async () => {
    const exact = randomBytes(1024 * 1024);
    expect((await upload(alice, name, [{ name: 'exact.bin', data: exact }])).status).toBe(200);
    expect(Buffer.compare(readFileSync(path.join(scratch, 'exact.bin')), exact)).toBe(0);
  });

  it('refuses 21 files and a 2 MiB file with 400, writing nothing', async () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `many-${i}.txt`, data: `file ${i}` }));
    const tooMany = await upload(alice, name, many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.headers['content-type']).toBe('application/problem+json');
    expect(problemType(tooMany)).toContain('invalid-api-params');
    const big = await upload(alice, name, [{ name: 'small-first.txt', data: 'small' }, { name: 'big.bin', data: randomBytes(2 * 1024 * 1024) }]);
    expect(big.status).toBe(400);
    const names = readdirSync(scratch);
    expect(names.filter((n) => n.startsWith('many-') || n === 'big.bin' || n === 'small-first.txt')).toEqual([]);
    // Exactly 20 is fine.
    expect((await upload(alice, name, many.slice(0, 20))).status).toBe(200);
    expect(readdirSync(scratch).filter((n) => n.startsWith('many-')).length).toBe(20);
  });

  it('refuses a body that is not multipart, or carries no files, with 400', async () => {
    expect((await alice.client.request('POST', `/session/${name}/upload`, { body: { src: 'x' } })).status).toBe(400);
    expect((await alice.client.request('POST', `/session/${name}/upload`, { rawBody: '--x\r\n', contentType: 'multipart/form-data; boundary=x' })).status).toBe(400);
    const onlyField = `--b1\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--b1--\r\n`;
    expect((await alice.client.request('POST', `/session/${name}/upload`, { rawBody: onlyField, contentType: 'multipart/form-data; boundary=b1' })).status).toBe(400);
  });

  describe('path traversal', () => {
    beforeAll(async () => {
      const out = await run(
        alice,
        name,
        [
          'import os',
          "os.symlink('/etc', 'etclink')",
          "os.symlink('/etc/passwd', 'pwlink')",
          `os.symlink(${JSON.stringify(otherScratch)}, 'otherlink')`,
          `os.symlink(${JSON.stringify(path.join(otherScratch, 'secret.txt'))}, 'othersecret')`,
          "os.symlink('../..', 'uplink')",
          "os.symlink('hello.txt', 'inlink')",
          "os.symlink('/home/work/sub', 'absinlink')",
          "print('ok')",
        ].join('\n'),
      );
      expect(out).toBe('ok\n');
    });

    const leaked = (body: Buffer) => body.includes('root:x:0:0') || body.includes('bob-secret');

    it.each([
      ['../x'],
      ['../../etc/passwd'],
      ['/etc/passwd'],
      ['/home/work/../../etc/passwd'],
      ['/home/workx/file'],
      ['sub/../../x'],
      ['etclink/passwd'],
      ['pwlink'],
      ['otherlink/secret.txt'],
      ['othersecret'],
      ['uplink/etc/passwd'],
      ['hello.txt\0.png'],
    ])('download_single refuses %j', async (file) => {
      const res = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file } });
      expect([400, 404]).toContain(res.status);
      expect(leaked(res.body)).toBe(false);
      const posted = await alice.client.request('POST', `/session/${name}/download_single`, { body: { file } });
      expect([400, 404]).toContain(posted.status);
      expect(leaked(posted.body)).toBe(false);
    });

    it.each([['%2e%2e/x'], ['%2e%2e%2f%2e%2e%2fetc%2fpasswd'], ['%2Fetc%2Fpasswd'], ['hello.txt%00'], ['..%2f..%2fetc%2fpasswd']])(
      'refuses the percent-encoded query %s',
      async (encoded) => {
        for (const route of ['download_single?file=', 'files?path=', 'download?files=']) {
          const res = await alice.client.request('GET', `/session/${name}/${route}${encoded}`);
          expect([400, 404], `${route}${encoded}`).toContain(res.status);
          expect(leaked(res.body)).toBe(false);
        }
      },
    );

    it.each([['..'], ['../..'], ['/etc'], ['etclink'], ['otherlink'], ['uplink'], ['sub/../..'], ['a\0b']])('files refuses path %j', async (p) => {
      const res = await alice.client.request('GET', `/session/${name}/files`, { query: { path: p } });
      expect([400, 404]).toContain(res.status);
      expect(res.text).not.toContain('passwd');
      expect(res.text).not.toContain('secret.txt');
    });

    it.each([[['etclink']], [['otherlink']], [['hello.txt', 'pwlink']], [['../x']], [['uplink']]])('download refuses %j', async (files) => {
      const res = await alice.client.request('GET', `/session/${name}/download`, { query: { files } });
      expect([400, 404]).toContain(res.status);
      expect(leaked(res.body)).toBe(false);
    });

    it.each([['../escape.txt'], ['/etc/berth-escape.txt'], ['/home/work/../escape.txt'], ['otherlink/planted.txt'], ['uplink/planted.txt'], ['bad\0name.txt']])(
      'upload refuses destination %j and writes nothing anywhere',
      async (dest) => {
        const res = await upload(alice, name, [{ name: 'fine.txt', data: 'fine' }, { name: dest, data: 'escaped' }]);
        expect(res.status).toBe(400);
        expect(existsSync(path.join(scratch, 'fine.txt'))).toBe(false);
        expect(existsSync(path.join(path.dirname(scratch), 'escape.txt'))).toBe(false);
        expect(existsSync('/etc/berth-escape.txt')).toBe(false);
        expect(existsSync(path.join(otherScratch, 'planted.txt'))).toBe(false);
      },
    );

    it('follows symlinks that stay inside /home/work (relative, or absolute under /home/work)', async () => {
      const relative = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: 'inlink' } });
      expect(relative.status).toBe(200);
      expect(relative.text).toBe('hello from upload\n');
      const listing = await alice.client.request('GET', `/session/${name}/files`, { query: { path: 'absinlink' } });
      expect(listing.status).toBe(200);
      expect(listing.json().files.map((f: any) => f.filename)).toEqual(['deep']);
      const root = (await alice.client.request('GET', `/session/${name}/files`)).json();
      expect(root.files.find((f: any) => f.filename === 'etclink').mode).toBe('lrwxrwxrwx');
    });

    it('replaces a symlink at the destination instead of writing through it', async () => {
      expect((await upload(alice, name, [{ name: 'othersecret', data: 'mine now' }])).status).toBe(200);
      expect(readFileSync(path.join(otherScratch, 'secret.txt'), 'utf8')).toBe('bob-secret');
      expect(readFileSync(path.join(scratch, 'othersecret'), 'utf8')).toBe('mine now');
    });
  });

  it('downloads two paths as multipart/mixed with one tar part each (GET and POST)', async () => {
    const res = await alice.client.request('GET', `/session/${name}/download`, { query: { files: ['hello.txt', 'sub'] } });
    expect(res.status).toBe(200);
    const contentType = String(res.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/mixed; boundary=/);
    const parts = splitMultipart(res.body, contentType);
    expect(parts.length).toBe(2);
    for (const part of parts) expect(part.headers['content-type']).toBe('application/x-tar');
    const first = await untar(parts[0].body);
    expect([...first.keys()]).toEqual(['hello.txt']);
    expect(first.get('hello.txt')!.content.toString()).toBe('hello from upload\n');
    const second = await untar(parts[1].body);
    expect([...second.keys()]).toEqual(['sub/', 'sub/deep/', 'sub/deep/nested.txt']);
    expect(second.get('sub/deep/nested.txt')!.content.toString()).toBe('nested+kernel');

    const posted = await alice.client.request('POST', `/session/${name}/download`, { body: { files: ['blob.bin', 'inlink'] } });
    expect(posted.status).toBe(200);
    const postedParts = splitMultipart(posted.body, String(posted.headers['content-type']));
    expect(Buffer.compare((await untar(postedParts[0].body)).get('blob.bin')!.content, binary)).toBe(0);
    expect((await untar(postedParts[1].body)).get('inlink')!.content.toString()).toBe('hello from upload\n');

    const comma = await alice.client.request('GET', `/session/${name}/download?files=hello.txt,abs.txt`);
    expect(splitMultipart(comma.body, String(comma.headers['content-type'])).length).toBe(2);
  });

  it('stores symlinks inside a downloaded directory as links, never following them', async () => {
    await run(alice, name, "import os\nos.makedirs('linkdir', exist_ok=True)\nos.symlink('/etc/passwd', 'linkdir/pw')\nopen('linkdir/real.txt','w').write('real')");
    const res = await alice.client.request('GET', `/session/${name}/download`, { query: { files: ['linkdir'] } });
    expect(res.status).toBe(200);
    const entries = await untar(splitMultipart(res.body, String(res.headers['content-type']))[0].body);
    expect(entries.get('linkdir/pw')).toMatchObject({ type: 'symlink', linkname: '/etc/passwd' });
    expect(entries.get('linkdir/real.txt')!.content.toString()).toBe('real');
    expect(res.body.includes('root:x:0:0')).toBe(false);
  });

  it('refuses more than 5 paths and an empty list with 400', async () => {
    const six = await alice.client.request('GET', `/session/${name}/download`, { query: { files: ['hello.txt', 'abs.txt', 'blob.bin', 'exact.bin', 'replace.txt', 'inlink'] } });
    expect(six.status).toBe(400);
    expect((await alice.client.request('GET', `/session/${name}/download`, { query: { files: [] } })).status).toBe(400);
    expect((await alice.client.request('GET', `/session/${name}/download`, { query: { files: ['hello.txt', 'missing.txt'] } })).status).toBe(404);
  });

  it('answers 404 to another user on every route, and touches nothing', async () => {
    const calls: [string, string, object][] = [
      ['GET', `/session/${name}/files`, {}],
      ['POST', `/session/${name}/upload`, formData([{ name: 'from-bob.txt', data: 'bob' }])],
      ['GET', `/session/${name}/download`, { query: { files: ['hello.txt'] } }],
      ['POST', `/session/${name}/download`, { body: { files: ['hello.txt'] } }],
      ['GET', `/session/${name}/download_single`, { query: { file: 'hello.txt' } }],
      ['POST', `/session/${name}/download_single`, { body: { file: 'hello.txt' } }],
      ['POST', `/session/${name}/commit`, { body: {} }],
      ['GET', `/session/${name}/commit`, {}],
    ];
    for (const [method, url, options] of calls) {
      const res = await bob.client.request(method, url, options);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(problemType(res)).toContain('object-not-found');
      // And with an owner_access_key of someone else: refused, not served.
      const o = options as { query?: Record<string, unknown>; body?: Record<string, unknown>; rawBody?: Buffer };
      const delegatedOptions = o.body
        ? { ...o, body: { ...o.body, owner_access_key: alice.accessKey } }
        : { ...o, query: { ...(o.query ?? {}), owner_access_key: alice.accessKey } };
      const delegated = await bob.client.request(method, url, delegatedOptions as object);
      expect([403, 404]).toContain(delegated.status);
    }
    expect(existsSync(path.join(scratch, 'from-bob.txt'))).toBe(false);
  });

  it('lets an admin reach the session on behalf of its owner', async () => {
    const res = await t.admin.request('GET', `/session/${name}/download_single`, { query: { file: 'hello.txt', owner_access_key: alice.accessKey } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('hello from upload\n');
  });
});

describe('commit', () => {
  it('snapshots /home/work into a new image that a new session starts from', async () => {
    const name = await startSession(alice, 'python', 'commit');
    expect((await upload(alice, name, [{ name: 'committed.txt', data: 'kept by commit' }, { name: 'dir/inner.txt', data: 'inner' }])).status).toBe(200);
    const before = await alice.client.call('GET', `/session/${name}/commit`);
    expect(before).toEqual({ status: 'ready', kernel: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const res = await alice.client.request('POST', `/session/${name}/commit`, { body: { filename: 'snap1' } });
    expect(res.status, res.text).toBe(200);
    const answer = res.json();
    expect(Object.keys(answer).sort()).toEqual(['bgtask_id', 'kernel', 'path']);
    expect(answer.kernel).toBe(before.kernel);
    const stream = await openEventStream(t.url, alice, '/events/background-task', { task_id: answer.bgtask_id });
    expect(stream.status).toBe(200);
    const done = await stream.next((e) => e.event.startsWith('bgtask_') && e.event !== 'bgtask_updated', 30_000);
    expect(done.event).toBe('bgtask_done');
    const imageName = done.data.message as string;
    expect(imageName).toMatch(/\/python:snap1$/);
    stream.close();
    // Progress was reported as files copied of the total.
    const task = await t.app.db.selectFrom('bgtasks').selectAll().where('id', '=', answer.bgtask_id).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ status: 'done' });
    expect(task.current_progress).toBe(task.total_progress);
    expect(task.total_progress).toBeGreaterThanOrEqual(2);
    expect(existsSync(path.join(answer.path, 'committed.txt'))).toBe(true);

    expect(await alice.client.call('GET', `/session/${name}/commit`)).toEqual({ status: 'ready', kernel: answer.kernel });
    const image = await t.app.db.selectFrom('images').selectAll().where('name', '=', imageName).executeTakeFirstOrThrow();
    expect(image).toMatchObject({ runtime: 'python', owner_access_key: alice.accessKey, snapshot_dir: answer.path });
    expect(image.service_ports).toEqual((await t.app.db.selectFrom('images').select('service_ports').where('name', '=', 'berth/python:3.11').executeTakeFirstOrThrow()).service_ports);

    // The same tag again is refused.
    expect((await alice.client.request('POST', `/session/${name}/commit`, { body: { filename: 'snap1' } })).status).toBe(400);
    expect((await alice.client.request('POST', `/session/${name}/commit`, { body: { filename: '../evil' } })).status).toBe(400);
    await destroy(alice, name);

    // Another user launches the committed image and sees the files.
    const fresh = await startSession(bob, imageName, 'fromimg');
    const out = await run(bob, fresh, "print(open('committed.txt').read(), open('dir/inner.txt').read())");
    expect(out).toBe('kept by commit inner\n');
    const listing = (await bob.client.request('GET', `/session/${fresh}/files`)).json();
    expect(listing.files.map((f: any) => f.filename)).toContain('committed.txt');
    await destroy(bob, fresh);
  });

  it('names the image by timestamp without a filename, and reports ongoing while copying', async () => {
    const name = await startSession(alice, 'python', 'commit');
    await run(alice, name, "import os\nos.makedirs('bulk', exist_ok=True)\nfor i in range(300):\n    open(f'bulk/f{i}.bin', 'wb').write(os.urandom(64 * 1024))");
    const answer = await alice.client.call('POST', `/session/${name}/commit`, { body: {} });
    const during = await alice.client.call('GET', `/session/${name}/commit`);
    expect(['ongoing', 'ready']).toContain(during.status);
    const second = await alice.client.request('POST', `/session/${name}/commit`, { body: {} });
    if (during.status === 'ongoing') expect(second.status).toBe(400);
    const stream = await openEventStream(t.url, alice, '/events/background-task', { task_id: answer.bgtask_id });
    const done = await stream.next((e) => e.event === 'bgtask_done' || e.event === 'bgtask_failed', 60_000);
    stream.close();
    expect(done.event).toBe('bgtask_done');
    expect(done.data.message).toMatch(/\/python:\d{8}T\d{6}Z/);
    await waitFor(async () => (await alice.client.call('GET', `/session/${name}/commit`)).status === 'ready');
    expect(readdirSync(path.join(answer.path, 'bulk')).length).toBe(300);
    if (second.status === 200) {
      const again = await openEventStream(t.url, alice, '/events/background-task', { task_id: second.json().bgtask_id });
      await again.next((e) => e.event === 'bgtask_done', 60_000);
      again.close();
    }
    await destroy(alice, name);
  });
});

describe('image import', () => {
  const body = (overrides: Record<string, unknown> = {}) => ({
    src: 'python',
    target: `berth-test/imported-${randomBytes(3).toString('hex')}:1.0`,
    architecture: 'x86_64',
    launchOptions: { scalingGroup: 'default', group: 'default' },
    brand: 'Imported Python',
    baseDistro: 'ubuntu',
    minCPU: 1,
    minMemory: '512m',
    preferredSharedMemory: '64m',
    supportedAccelerators: [],
    runtimeType: 'python',
    runtimePath: '/usr/bin/python3',
    CPUCountEnvs: ['NPROC', 'OMP_NUM_THREADS'],
    servicePorts: [{ name: 'web', protocol: 'http', ports: [8000] }],
    ...overrides,
  });

  it('describes its form to admins (GET) and refuses plain users', async () => {
    const res = await t.admin.request('GET', '/image/import');
    expect(res.status).toBe(200);
    const form = res.json();
    expect(Array.isArray(form.fieldGroups)).toBe(true);
    const names: string[] = [];
    const check = (field: any) => {
      expect(typeof field.name).toBe('string');
      expect(typeof field.type).toBe('string');
      expect(typeof field.label).toBe('string');
      if (field.choices !== undefined) expect(Array.isArray(field.choices)).toBe(true);
      names.push(field.name);
      for (const inner of field.fields ?? []) check(inner);
    };
    for (const group of form.fieldGroups) {
      expect(typeof group.name).toBe('string');
      expect(Array.isArray(group.fields)).toBe(true);
      for (const field of group.fields) check(field);
    }
    for (const required of ['src', 'target', 'architecture', 'launchOptions', 'scalingGroup', 'group', 'brand', 'baseDistro', 'minCPU', 'minMemory', 'preferredSharedMemory', 'supportedAccelerators', 'runtimeType', 'runtimePath', 'CPUCountEnvs', 'servicePorts']) {
      expect(names).toContain(required);
    }
    const all = form.fieldGroups.flatMap((g: any) => g.fields.flatMap((f: any) => [f, ...(f.fields ?? [])]));
    expect(all.find((f: any) => f.name === 'baseDistro').choices).toEqual(['ubuntu', 'centos']);
    expect(all.find((f: any) => f.name === 'runtimeType').choices).toEqual(['python']);
    expect(all.find((f: any) => f.name === 'scalingGroup').choices).toContain('default');
    expect((await alice.client.request('GET', '/image/import')).status).toBe(403);
    expect((await alice.client.request('POST', '/image/import', { body: body() })).status).toBe(403);
  });

  it.each([
    ['an unknown src', { src: 'registry.example.com/nobody/nothing:1.0' }],
    ['a relative runtimePath', { runtimePath: 'usr/bin/python3' }],
    ['an unknown runtimeType', { runtimeType: 'ruby' }],
    ['an unknown baseDistro', { baseDistro: 'arch' }],
    ['a target that exists', { target: 'berth/python:3.11' }],
    ['a missing launchOptions.group', { launchOptions: { scalingGroup: 'default' } }],
    ['an unknown service-port protocol', { servicePorts: [{ name: 'x', protocol: 'udp', ports: [9000] }] }],
    ['another architecture', { architecture: 'aarch64' }],
  ])('refuses %s with 400', async (_, overrides) => {
    const before = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const res = await t.admin.request('POST', '/image/import', { body: body(overrides) });
    expect(res.status, res.text).toBe(400);
    if ('src' in overrides) expect(res.json().detail).toMatch(/cannot pull/);
    const after = await t.app.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('imports through a temporary kernel and registers a launchable image', async () => {
    const request = body();
    const res = await t.admin.request('POST', '/image/import', { body: request });
    expect(res.status, res.text).toBe(200);
    const answer = res.json();
    expect(Object.keys(answer)).toEqual(['importTask']);
    expect(answer.importTask.sessionId).toMatch(/^image-import-[0-9a-z]+$/);
    expect(answer.importTask.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const kernel = await t.app.db.selectFrom('kernels as k').innerJoin('sessions as s', 's.id', 'k.session_id').select(['s.name', 's.session_type', 's.access_key', 's.requested_slots']).where('k.id', '=', answer.importTask.taskId).executeTakeFirstOrThrow();
    expect(kernel).toMatchObject({ name: answer.importTask.sessionId, access_key: t.adminCreds.accessKey });
    expect(kernel.requested_slots).toMatchObject({ cpu: '1', mem: String(1024 ** 3) });

    await waitFor(async () => Boolean(await t.app.db.selectFrom('images').select('id').where('name', '=', request.target).executeTakeFirst()), 60_000);
    const logs = await t.admin.call('GET', `/session/${answer.importTask.sessionId}/logs`);
    expect(logs.result.logs).toContain('found Python 3.');
    const image = await t.app.db.selectFrom('images').selectAll().where('name', '=', request.target).executeTakeFirstOrThrow();
    expect(image).toMatchObject({ runtime: 'python', tag: '1.0', owner_access_key: t.adminCreds.accessKey });
    expect(image.resource_limits).toEqual({ cpu: { min: '1' }, mem: { min: String(512 * 1024 * 1024) } });
    expect(image.service_ports).toEqual([{ name: 'web', protocol: 'http', ports: [8000] }]);
    expect(image.labels).toMatchObject({ 'ai.backend.runtime-path': '/usr/bin/python3', 'ai.backend.base-distro': 'ubuntu', 'ai.backend.envs.corecount': 'NPROC,OMP_NUM_THREADS' });

    const session = await startSession(alice, request.target, 'imported');
    expect(await run(alice, session, 'print(6 * 7)')).toBe('42\n');
    const info = await alice.client.call('GET', `/session/${session}`);
    expect(info.occupiedSlots).toEqual({ cpu: '1', mem: String(512 * 1024 * 1024) });
    await destroy(alice, session);
  });

  it('does not register the image when the runtime path is missing in it', async () => {
    const request = body({ runtimePath: '/opt/no-such/python3' });
    const answer = (await t.admin.call('POST', '/image/import', { body: request })).importTask;
    await waitFor(async () => (await t.admin.call('GET', `/session/${answer.sessionId}`)).status === 'TERMINATED', 60_000);
    const logs = await t.admin.call('GET', `/session/${answer.sessionId}/logs`);
    expect(logs.result.logs).toContain('/opt/no-such/python3 does not exist');
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.app.db.selectFrom('images').select('id').where('name', '=', request.target).executeTakeFirst()).toBeUndefined();
    expect((await alice.client.request('POST', '/session', { body: { name: uniqueName('nope'), image: request.target, group: 'default' } })).status).toBe(400);
  });
});
