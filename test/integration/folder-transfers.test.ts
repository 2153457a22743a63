/**
 * Folder transfers (CONTRACT §9.4): request-upload / request-download tokens, tus 1.0 uploads (resumed after a
 * dropped connection, atomic placement, quota), downloads (ranges, HEAD, zip of a directory) and traversal attempts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, decodeJwt } from 'jose';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { heldUploadSessions } from '../../server/storage/transfers/upload-quota';
import { gcHeadroomHolders } from '../../server/util/gc-headroom';
import { FLUSH_EVERY_BYTES, backgroundFlushesStarted } from '../../server/storage/transfers/flush-behind';
import { metricsOf } from '../../server/metrics/registry';

const PROBLEM = 'https://errors.berth.dev/';

let t: TestBerth;
let user: TestUser;
let outside: string;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TUS = { 'Tus-Resumable': '1.0.0' };

function patch(url: string, offset: number, bytes: Buffer): Promise<Reply> {
  return send('PATCH', url, { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) }, bytes);
}

async function makeFolder(name: string, owner = user): Promise<{ id: string; root: string }> {
  const created = await owner.client.call('POST', '/folders', { body: { name } });
  return { id: created.id, root: path.join(t.app.settings.dataDir, 'vfolders', 'volume1', created.id) };
}

async function requestUpload(folder: string, p: string, size: number, who = user) {
  return who.client.request('POST', `/folders/${folder}/request-upload`, { body: { path: p, size } });
}

async function uploadUrl(folder: string, p: string, size: number): Promise<string> {
  const res = await requestUpload(folder, p, size);
  expect(res.status, res.text).toBe(200);
  const { token, url } = res.json();
  return `${url}?token=${encodeURIComponent(token)}`;
}

async function downloadUrl(folder: string, p: string, archive = false): Promise<string> {
  const res = await user.client.request('POST', `/folders/${folder}/request-download`, { body: { path: p, archive } });
  expect(res.status, res.text).toBe(200);
  const { token, url } = res.json();
  return `${url}?token=${encodeURIComponent(token)}`;
}

async function downloadedBytes(): Promise<number> {
  const { values } = await metricsOf(t.app).storageBytes.get();
  return values.find((v) => v.labels.direction === 'download')?.value ?? 0;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function unzip(buffer: Buffer): Promise<Map<string, { data: Buffer; mode: number }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, { data: Buffer; mode: number }>();
      zip.on('entry', (entry: yauzl.Entry) => {
        const mode = (entry.externalFileAttributes >>> 16) & 0o177777;
        if (entry.fileName.endsWith('/')) {
          out.set(entry.fileName, { data: Buffer.alloc(0), mode });
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, { data: Buffer.concat(chunks), mode });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

function uploadsDir(): string {
  return path.join(t.app.settings.dataDir, 'vfolders', 'volume1', '.uploads');
}

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
  outside = mkdtempSync(path.join(tmpdir(), 'berth-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret outside bytes');
});
afterAll(async () => {
  await t?.stop();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

describe('request-upload / request-download', () => {
  it('hands out an HS256 token with the contract claims and a URL on the manager port', async () => {
    const folder = await makeFolder('tokens');
    const res = await requestUpload('tokens', 'a/b.bin', 10);
    expect(res.status).toBe(200);
    const body = res.json();
    const port = new URL(t.url).port;
    expect(body.url).toBe(`http://127.0.0.1:${port}/storage/upload`);
    const header = JSON.parse(Buffer.from(body.token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({ op: 'upload', volume: 'volume1', vfid: folder.id, relpath: 'a/b.bin', size: 10 });
    expect(typeof claims.session).toBe('string');
    expect(claims.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(24 * 3600 - 120);
    expect(claims.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(24 * 3600);
    const secret = path.join(t.app.settings.dataDir, 'storage-secret');
    expect(statSync(secret).mode & 0o777).toBe(0o600);

    const down = await user.client.call('POST', '/folders/tokens/request-download', { body: { path: 'x' } });
    expect(down.url).toBe(`http://127.0.0.1:${port}/storage/download`);
    expect(decodeJwt(down.token)).toMatchObject({ op: 'download', vfid: folder.id, relpath: 'x' });
  });

  it('OPTIONS advertises tus 1.0.0 with the max size', async () => {
    const res = await send('OPTIONS', `${t.url}/storage/upload`);
    expect([200, 204]).toContain(res.status);
    expect(res.headers['tus-resumable']).toBe('1.0.0');
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect(res.headers['tus-max-size']).toBe(String(100 * 1024 ** 3));
  });
});

describe('tus upload', () => {
  it('resumes after a dropped connection and places identical bytes atomically', async () => {
    const folder = await makeFolder('resume');
    const data = randomBytes(3 * 1024 * 1024 + 123);
    const url = await uploadUrl('resume', 'deep/dir/data.bin', data.length);
    const session = decodeJwt(new URL(url).searchParams.get('token')!).session as string;
    const finalPath = path.join(folder.root, 'deep', 'dir', 'data.bin');

    let head = await send('HEAD', url, TUS);
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe('0');
    expect(head.headers['upload-length']).toBe(String(data.length));
    expect(head.headers['cache-control']).toBe('no-store');

    // Send the first megabyte of a PATCH announcing everything, then drop the connection.
    const part = 1024 * 1024;
    let headroomWhileStreaming = -1;
    await new Promise<void>((resolve) => {
      const req = http.request(url, {
        method: 'PATCH',
        headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0', 'Content-Length': String(data.length) },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(data.subarray(0, part));
      const temp = path.join(uploadsDir(), session);
      const started = Date.now();
      const poll = setInterval(() => {
        if ((existsSync(temp) && statSync(temp).size >= part) || Date.now() - started > 10_000) {
          clearInterval(poll);
          // The body is streaming in: the PATCH holds V8's wider old-generation headroom (server/util/gc-headroom.ts).
          headroomWhileStreaming = gcHeadroomHolders();
          req.destroy();
          setTimeout(resolve, 100);
        }
      }, 20);
    });
    // A killed upload leaves nothing under its final name.
    expect(existsSync(finalPath)).toBe(false);
    expect(headroomWhileStreaming).toBe(1);

    let offset = 0;
    for (let i = 0; i < 50; i++) {
      head = await send('HEAD', url, TUS);
      offset = Number(head.headers['upload-offset']);
      if (offset === part) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(head.status).toBe(200);
    expect(offset).toBe(part);
    // …and lets it go once the dropped PATCH has ended.
    expect(gcHeadroomHolders()).toBe(0);

    // A wrong offset is refused (409) without touching anything.
    expect((await patch(url, 5, data.subarray(5))).status).toBe(409);

    const done = await patch(url, offset, data.subarray(offset));
    expect(done.status).toBe(204);
    expect(done.headers['upload-offset']).toBe(String(data.length));
    expect(done.headers['tus-resumable']).toBe('1.0.0');
    expect(String(done.headers['access-control-expose-headers'])).toMatch(/Upload-Offset/);
    expect(sha(readFileSync(finalPath))).toBe(sha(data));
    expect(readdirSync(uploadsDir()).filter((n) => n.startsWith(session))).toEqual([]);

    // The session is over.
    const after = await send('HEAD', url, TUS);
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body.toString() || '{}').type ?? `${PROBLEM}storage/no-such-upload-session`).toBe(`${PROBLEM}storage/no-such-upload-session`);
    const patchAfter = await patch(url, 0, Buffer.from('x'));
    expect(patchAfter.status).toBe(404);
    expect(JSON.parse(patchAfter.body.toString()).type).toBe(`${PROBLEM}storage/no-such-upload-session`);
  });

  it('flushes a long upload to disk while it arrives, in 8 MiB PATCHes, and places identical bytes', async () => {
    const folder = await makeFolder('flushed');
    const chunk = 8 << 20;
    const data = randomBytes(FLUSH_EVERY_BYTES + chunk);
    const url = await uploadUrl('flushed', 'big.bin', data.length);
    const before = backgroundFlushesStarted();
    for (let offset = 0; offset < data.length; offset += chunk) {
      const reply = await patch(url, offset, data.subarray(offset, offset + chunk));
      expect(reply.status, reply.body.toString()).toBe(204);
      expect(reply.headers['upload-offset']).toBe(String(offset + chunk));
    }
    // The fourth PATCH passed the flush step (server/storage/transfers/flush-behind.ts).
    expect(backgroundFlushesStarted()).toBeGreaterThan(before);
    expect(sha(readFileSync(path.join(folder.root, 'big.bin')))).toBe(sha(data));
  });

  it('uploads an empty file and replaces an existing file atomically', async () => {
    const folder = await makeFolder('small');
    writeFileSync(path.join(folder.root, 'f.txt'), 'old contents');
    const url = await uploadUrl('small', 'f.txt', 3);
    expect(readFileSync(path.join(folder.root, 'f.txt'), 'utf8')).toBe('old contents');
    expect((await patch(url, 0, Buffer.from('new'))).status).toBe(204);
    expect(readFileSync(path.join(folder.root, 'f.txt'), 'utf8')).toBe('new');
    const empty = await uploadUrl('small', 'empty.txt', 0);
    expect((await patch(empty, 0, Buffer.alloc(0))).status).toBe(204);
    expect(statSync(path.join(folder.root, 'empty.txt')).size).toBe(0);
  });

  it('refuses an upload over the quota with 412 and leaves nothing behind', async () => {
    const other = await t.createUser();
    const folder = await makeFolder('quota', other);
    const set = await other.client.request('POST', '/folders/_/quota', { body: { folder_host: 'local:volume1', id: folder.id, input: { size_bytes: 1000 } } });
    expect(set.status, set.text).toBe(200);
    const before = readdirSync(uploadsDir()).length;
    const refused = await requestUpload('quota', 'big.bin', 5000, other);
    expect(refused.status).toBe(412);
    expect(refused.json().type).toBe(`${PROBLEM}quota-exceeded`);
    expect(readdirSync(uploadsDir()).length).toBe(before);
    expect(readdirSync(folder.root)).toEqual([]);

    // Accepted when asked, then the scope fills up before the bytes come: the PATCH is refused, nothing placed.
    const res = await requestUpload('quota', 'late.bin', 900, other);
    expect(res.status).toBe(200);
    const { token, url } = res.json();
    writeFileSync(path.join(folder.root, 'filler.bin'), randomBytes(500));
    const late = await patch(`${url}?token=${token}`, 0, randomBytes(900));
    expect(late.status).toBe(412);
    expect(JSON.parse(late.body.toString()).type).toBe(`${PROBLEM}quota-exceeded`);
    expect(existsSync(path.join(folder.root, 'late.bin'))).toBe(false);
  });

  it('holds the whole size of a chunked upload from its first PATCH until it completes', async () => {
    const other = await t.createUser();
    const folder = await makeFolder('held', other);
    expect((await other.client.request('POST', '/folders/_/quota', { body: { folder_host: 'local:volume1', id: folder.id, input: { size_bytes: 1000 } } })).status).toBe(200);
    const res = await requestUpload('held', 'chunked.bin', 900, other);
    expect(res.status, res.text).toBe(200);
    const url = `${res.json().url}?token=${res.json().token}`;
    const session = decodeJwt(res.json().token).session as string;
    const data = randomBytes(900);
    expect((await patch(url, 0, data.subarray(0, 450))).status).toBe(204);
    // The 450 bytes received are outside the folder, but still promised: 900 + 200 would pass the limit.
    expect(heldUploadSessions(t.app)).toContain(session);
    const second = await requestUpload('held', 'second.bin', 200, other);
    expect(second.status).toBe(412);
    expect(second.json().type).toBe(`${PROBLEM}quota-exceeded`);
    // A session terminated with DELETE gives its hold back at once.
    const dropped = await requestUpload('held', 'dropped.bin', 100, other);
    const droppedUrl = `${dropped.json().url}?token=${dropped.json().token}`;
    expect((await patch(droppedUrl, 0, randomBytes(50))).status).toBe(204);
    expect(heldUploadSessions(t.app)).toContain(decodeJwt(dropped.json().token).session);
    expect((await send('DELETE', droppedUrl, TUS)).status).toBe(204);
    expect(heldUploadSessions(t.app)).toEqual([session]);
    expect((await requestUpload('held', 'small.bin', 100, other)).status).toBe(200);
    const done = await patch(url, 450, data.subarray(450));
    expect(done.status).toBe(204);
    expect(sha(readFileSync(path.join(folder.root, 'chunked.bin')))).toBe(sha(data));
    // Placed: the hold is over and the bytes count from the folder itself.
    expect(heldUploadSessions(t.app)).not.toContain(session);
    expect((await requestUpload('held', 'more.bin', 200, other)).status).toBe(412);
    expect((await requestUpload('held', 'fits.bin', 100, other)).status).toBe(200);
  });

  it('keeps the tus PATCH rules: content type, offset, size, chunked bodies', async () => {
    const folder = await makeFolder('rules');
    const data = randomBytes(64 * 1024 + 7);
    const url = await uploadUrl('rules', 'r.bin', data.length);
    const wrongType = await send('PATCH', url, { ...TUS, 'Content-Type': 'application/octet-stream', 'Upload-Offset': '0' }, data);
    expect(wrongType.status).toBe(415);
    expect((await send('PATCH', url, { ...TUS, 'Content-Type': 'application/offset+octet-stream' }, data)).status).toBe(400);
    const tooBig = await patch(url, 0, Buffer.concat([data, Buffer.from('x')]));
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.body.toString()).type).toBe(`${PROBLEM}payload-too-large`);
    expect((await send('HEAD', url, TUS)).headers['upload-offset']).toBe('0');
    // A body without Content-Length (chunked transfer encoding) is taken as it comes.
    const chunked = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(url, { method: 'PATCH', headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0', 'Transfer-Encoding': 'chunked' } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.write(data.subarray(0, 1000));
      req.end(data.subarray(1000, 5000));
    });
    expect(chunked.status).toBe(204);
    expect(chunked.headers['upload-offset']).toBe('5000');
    expect(chunked.headers['upload-expires']).toBeDefined();
    expect((await patch(url, 4000, data.subarray(4000))).status).toBe(409);
    expect(readdirSync(folder.root)).toEqual([]);
    const done = await patch(url, 5000, data.subarray(5000));
    expect(done.status).toBe(204);
    expect(done.headers['upload-offset']).toBe(String(data.length));
    expect(sha(readFileSync(path.join(folder.root, 'r.bin')))).toBe(sha(data));
  });

  it('re-checks access on every chunk: a chunk after the access ended is refused and none of its bytes kept', async () => {
    const owner = await t.createUser();
    const guest = await t.createUser();
    const folder = await makeFolder('revoked', owner);
    const uuid = folder.id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: uuid, user_uuid: guest.uuid, permission: 'rw' }).execute();
    const data = randomBytes(3000);
    const asked = await requestUpload(folder.id, 'g.bin', data.length, guest);
    expect(asked.status, asked.text).toBe(200);
    const url = `${asked.json().url}?token=${asked.json().token}`;
    const temp = path.join(uploadsDir(), decodeJwt(asked.json().token).session as string);
    expect((await patch(url, 0, data.subarray(0, 1000))).status).toBe(204);
    await t.app.db.deleteFrom('vfolder_permissions').where('vfolder_id', '=', uuid).execute();
    const refused = await patch(url, 1000, data.subarray(1000, 2000));
    expect(refused.status).toBe(404);
    expect(statSync(temp).size).toBe(1000);
    // Shared again: the upload goes on from where it was, and the folder going to the trash stops it likewise.
    await t.app.db.insertInto('vfolder_permissions').values({ vfolder_id: uuid, user_uuid: guest.uuid, permission: 'rw' }).execute();
    expect((await patch(url, 1000, data.subarray(1000, 2000))).status).toBe(204);
    await owner.client.call('DELETE', `/folders/${folder.id}`);
    const trashed = await patch(url, 2000, data.subarray(2000));
    expect(trashed.status).toBe(400);
    expect(JSON.parse(trashed.body.toString()).type).toBe(`${PROBLEM}vfolder-filter-status-failed`);
    expect(statSync(temp).size).toBe(2000);
    expect((await send('HEAD', url, TUS)).headers['upload-offset']).toBe('2000');
    expect(existsSync(path.join(folder.root, 'g.bin'))).toBe(false);
  });

  it('remembers a verified token only until it expires', async () => {
    await makeFolder('clock');
    const url = await uploadUrl('clock', 'c.bin', 4);
    expect((await send('HEAD', url, TUS)).status).toBe(200);
    const exp = decodeJwt(new URL(url).searchParams.get('token')!).exp!;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime((exp + 1) * 1000);
      const late = await patch(url, 0, Buffer.from('abcd'));
      expect(late.status).toBe(401);
      expect(JSON.parse(late.body.toString()).detail).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses traversal in path and dst_dir, and symlinks leading out', async () => {
    const folder = await makeFolder('trav-up');
    symlinkSync(outside, path.join(folder.root, 'out'));
    mkdirSync(path.join(folder.root, 'sub'));
    for (const bad of ['../x', '/etc/passwd', '%2e%2e/x', 'a/../../x', 'a\0b', 'out/x', '']) {
      const res = await requestUpload('trav-up', bad, 3);
      expect(res.status, `${JSON.stringify(bad)}: ${res.text}`).toBe(400);
    }
    const url = await uploadUrl('trav-up', 'ok.txt', 3);
    const viaDst = await patch(`${url}&dst_dir=${encodeURIComponent('../..')}`, 0, Buffer.from('abc'));
    expect(viaDst.status).toBe(400);

    // A directory swapped for a symlink pointing out after the token was issued: refused when the upload completes.
    const swap = await uploadUrl('trav-up', 'sub/file.txt', 3);
    rmSync(path.join(folder.root, 'sub'), { recursive: true });
    symlinkSync(outside, path.join(folder.root, 'sub'));
    const swapped = await patch(swap, 0, Buffer.from('abc'));
    expect(swapped.status).toBe(400);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(existsSync(path.join(folder.root, 'ok.txt'))).toBe(false);
  });
});

describe('tokens', () => {
  it('refuses missing, forged, expired and wrong-operation tokens', async () => {
    await makeFolder('tok2');
    writeFileSync(path.join(t.app.settings.dataDir, 'vfolders', 'volume1', (await user.client.call('GET', '/folders/tok2')).id, 'f.txt'), 'hello');
    const down = await user.client.call('POST', '/folders/tok2/request-download', { body: { path: 'f.txt' } });
    const up = await user.client.call('POST', '/folders/tok2/request-upload', { body: { path: 'g.txt', size: 1 } });

    expect((await send('GET', down.url)).status).toBe(401);
    expect((await send('HEAD', up.url, TUS)).status).toBe(401);
    const forged = new SignJWT(decodeJwt(down.token)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('not-the-secret-not-the-secret-00'));
    const bad = await send('GET', `${down.url}?token=${await forged}`);
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body.toString()).type).toBe(`${PROBLEM}auth-failed`);

    const secret = new TextEncoder().encode(readFileSync(path.join(t.app.settings.dataDir, 'storage-secret'), 'utf8').trim());
    const expired = await new SignJWT({ ...decodeJwt(down.token), exp: Math.floor(Date.now() / 1000) - 10 }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    expect((await send('GET', `${down.url}?token=${expired}`)).status).toBe(401);

    const wrongOp = await send('GET', `${down.url}?token=${up.token}`);
    expect(wrongOp.status).toBe(403);
    expect((await patch(`${up.url}?token=${down.token}`, 0, Buffer.from('x'))).status).toBe(403);

    // The folder goes to the trash: still readable (CONTRACT §5.3), no longer writable.
    expect((await send('GET', `${down.url}?token=${down.token}`)).status).toBe(200);
    await user.client.call('DELETE', '/folders/tok2');
    const trashed = await patch(`${up.url}?token=${up.token}`, 0, Buffer.from('x'));
    expect(trashed.status).toBe(400);
    expect(JSON.parse(trashed.body.toString()).type).toBe(`${PROBLEM}vfolder-filter-status-failed`);

    // A token of another user's folder is refused for whoever holds it once the folder is no longer theirs to see.
    const stranger = await t.createUser();
    await stranger.client.call('POST', '/folders', { body: { name: 'theirs' } });
    const theirs = await stranger.client.call('POST', '/folders/theirs/request-download', { body: { path: '' , archive: true } });
    expect((await send('GET', `${theirs.url}?token=${theirs.token}`)).status).toBe(200);
    await t.app.db.updateTable('keypairs').set({ is_active: false }).where('access_key', '=', stranger.accessKey).execute();
    t.app.keypairs.invalidate(stranger.accessKey);
    expect((await send('GET', `${theirs.url}?token=${theirs.token}`)).status).toBe(401);
  });
});

describe('download', () => {
  it('serves a file with Content-Disposition, HEAD, ranges and 416', async () => {
    const folder = await makeFolder('down');
    // Larger than the sender's two 256 KiB buffers, so whole files and ranges span several reads.
    const data = randomBytes(600_000);
    writeFileSync(path.join(folder.root, 'données é.bin'), data);
    const url = await downloadUrl('down', 'données é.bin');
    const countedBefore = await downloadedBytes();
    const full = await send('GET', url);
    expect(full.status).toBe(200);
    expect(full.headers['content-type']).toBe('application/octet-stream');
    expect(full.headers['content-disposition']).toBe(`attachment; filename="donn_es _.bin"; filename*=UTF-8''${encodeURIComponent('données é.bin')}`);
    expect(sha(full.body)).toBe(sha(data));
    // berth_storage_bytes_total{direction="download"} counts what was sent.
    expect((await downloadedBytes()) - countedBefore).toBe(data.length);

    const head = await send('HEAD', url);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(data.length));
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(new Date(String(head.headers['last-modified'])).getTime()).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);

    const range = await send('GET', url, { Range: 'bytes=1000-1999' });
    expect(range.status).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 1000-1999/${data.length}`);
    expect(range.body.equals(data.subarray(1000, 2000))).toBe(true);
    const across = await send('GET', url, { Range: 'bytes=262000-530000' });
    expect(across.status).toBe(206);
    expect(across.body.equals(data.subarray(262000, 530001))).toBe(true);
    const suffix = await send('GET', url, { Range: 'bytes=-10' });
    expect(suffix.status).toBe(206);
    expect(suffix.body.equals(data.subarray(data.length - 10))).toBe(true);
    const open = await send('GET', url, { Range: 'bytes=599990-' });
    expect(open.body.equals(data.subarray(599990))).toBe(true);
    const unsatisfiable = await send('GET', url, { Range: `bytes=${data.length}-` });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers['content-range']).toBe(`bytes */${data.length}`);

    const missing = await send('GET', await downloadUrl('down', 'nope.bin'));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body.toString()).type).toBe(`${PROBLEM}storage/file-not-found`);
  });

  it('streams a directory as a zip with identical bytes, symlinks kept as links; 400 without archive', async () => {
    const folder = await makeFolder('zipme');
    const files: Record<string, Buffer> = {
      'tree/a.txt': Buffer.from('alpha'),
      'tree/bin/random.bin': randomBytes(300_000),
      'tree/bin/deeper/empty': Buffer.alloc(0),
      'tree/ünï.txt': Buffer.from('unicode name'),
    };
    for (const [p, data] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(folder.root, p)), { recursive: true });
      writeFileSync(path.join(folder.root, p), data);
    }
    symlinkSync('a.txt', path.join(folder.root, 'tree', 'link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(folder.root, 'tree', 'evil'));

    const noArchive = await send('GET', await downloadUrl('zipme', 'tree'));
    expect(noArchive.status).toBe(400);

    const res = await send('GET', await downloadUrl('zipme', 'tree', true));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain('tree.zip');
    expect(res.body.includes(Buffer.from('top secret outside bytes'))).toBe(false);
    const entries = await unzip(res.body);
    for (const [p, data] of Object.entries(files)) {
      const entry = entries.get(p.slice('tree/'.length));
      expect(entry, p).toBeDefined();
      expect(sha(entry!.data)).toBe(sha(data));
    }
    expect(entries.get('link')!.mode & 0o170000).toBe(0o120000);
    expect(entries.get('link')!.data.toString()).toBe('a.txt');
    expect(entries.get('evil')!.data.toString()).toBe(path.join(outside, 'secret.txt'));

    // The query's archive flag works too, and the whole folder zips by its name.
    const whole = await user.client.call('POST', '/folders/zipme/request-download', { body: { path: '' } });
    const rootZip = await send('GET', `${whole.url}?token=${whole.token}&archive=true`);
    expect(rootZip.status).toBe(200);
    expect(rootZip.headers['content-disposition']).toContain('zipme.zip');
    expect((await unzip(rootZip.body)).get('tree/a.txt')!.data.toString()).toBe('alpha');
  });

  it('never reads through traversal or a symlink leading out', async () => {
    const folder = await makeFolder('trav-down');
    symlinkSync(outside, path.join(folder.root, 'out'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(folder.root, 'abs-link'));
    symlinkSync('../../../../../../../../../../' + path.join(outside, 'secret.txt').slice(1), path.join(folder.root, 'rel-link'));
    for (const bad of ['../x', '/etc/passwd', '%2e%2e/secret.txt', 'a\0b']) {
      const res = await user.client.request('POST', '/folders/trav-down/request-download', { body: { path: bad } });
      expect(res.status, bad).toBe(400);
    }
    for (const p of ['out/secret.txt', 'abs-link', 'rel-link']) {
      const res = await send('GET', await downloadUrl('trav-down', p));
      expect(res.status, p).toBe(400);
      expect(res.body.includes(Buffer.from('top secret'))).toBe(false);
    }
    expect(lstatSync(path.join(folder.root, 'out')).isSymbolicLink()).toBe(true);
  });
});
