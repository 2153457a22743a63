/**
 * `berth folder …`: virtual folders from a terminal. Uploads speak tus 1.0 through tus-js-client (HEAD and PATCH only,
 * as the manager's /storage/upload expects: the upload session is created by request-upload) in chunks, and remember
 * their token in a small state file so that running the same command again resumes from the server's offset.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import * as tus from 'tus-js-client';
import type { BerthClient } from '../client';
import { configPath, loadSaved, signedClient, UsageError } from './credentials';
import { followTask } from './tasks';
import { dispatch, type Action } from './dispatch';

const TUS = { 'Tus-Resumable': '1.0.0' };
const DEFAULT_CHUNK = 8 * 1024 * 1024;

const folderPath = (name: string) => `/folders/${encodeURIComponent(name)}`;

export function folder(args: string[]): Promise<unknown> {
  return dispatch('folder action', FOLDER_ACTIONS, args);
}

const FOLDER_ACTIONS: Record<string, Action> = {
  list, create, ls, upload, download, clone,
  share: (rest) => {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { perm: { type: 'string', default: 'ro' } } });
    const [name, email] = positionals;
    if (!name || !email) throw new UsageError('folder share needs NAME and EMAIL');
    if (!['ro', 'rw', 'wd'].includes(values.perm!)) throw new UsageError('--perm is ro, rw or wd');
    return signedClient().call('POST', `${folderPath(name)}/invite`, { body: { permission: values.perm, emails: [email] } });
  },
  invitations: async () => (await signedClient().call('GET', '/folders/invitations/list')).invitations,
  accept: ([id]) => {
    if (!id) throw new UsageError('folder accept needs an INV_ID');
    return signedClient().call('POST', '/folders/invitations/accept', { body: { inv_id: id } });
  },
  delete: ([name]) => {
    if (!name) throw new UsageError('folder delete needs a NAME');
    return signedClient().call('DELETE', folderPath(name));
  },
};

async function list(args: string[]): Promise<unknown> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const folders = (await signedClient().call('GET', '/folders')) as Record<string, unknown>[];
  if (values.json) return folders;
  for (const f of folders) {
    const owner = f.ownership_type === 'group' ? `group:${String(f.group_name ?? f.group)}` : String(f.ownership_type ?? 'user');
    console.log([f.name, f.id, f.host, f.permission, owner, f.is_owner === false ? 'shared' : 'own', f.status].join('\t'));
  }
  return undefined;
}

async function create(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      group: { type: 'string' },
      cloneable: { type: 'boolean', default: false },
      host: { type: 'string' },
      'usage-mode': { type: 'string' },
      permission: { type: 'string' },
    },
  });
  const [name] = positionals;
  if (!name) throw new UsageError('folder create needs a NAME');
  return signedClient().call('POST', '/folders', {
    body: { name, group: values.group, cloneable: values.cloneable, host: values.host, usage_mode: values['usage-mode'], permission: values.permission },
  });
}

async function ls(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const [name, dir = ''] = positionals;
  if (!name) throw new UsageError('folder ls needs a NAME');
  const { items } = await signedClient().call('GET', `${folderPath(name)}/files`, { query: { path: dir } });
  if (values.json) return items;
  for (const item of items as { name: string; type: string; size: number; mode: string; modified: string }[]) {
    const kind = item.type === 'DIRECTORY' ? 'd' : item.type === 'SYMLINK' ? 'l' : '-';
    console.log(`${kind} ${item.mode.padStart(4)} ${String(item.size).padStart(12)} ${item.modified} ${item.name}`);
  }
  return undefined;
}

/** "8M", "512k", "1G" or plain bytes. */
function parseSize(text: string): number {
  const match = /^(\d+)([kmg]?)i?b?$/i.exec(text.trim());
  if (!match) throw new UsageError(`not a size: ${text}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  const bytes = Number(match[1]) * unit;
  if (bytes < 1) throw new UsageError('--chunk-size must be at least one byte');
  return bytes;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One unsigned request without a body to a transfer URL (the token in its query authorises it). */
function transfer(method: string, url: string, headers: Record<string, string>): Promise<Reply> {
  const transport = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

interface UploadState {
  url: string;
  folder: string;
  remote: string;
  size: number;
}

function statePath(client: BerthClient, name: string, remote: string, size: number): string {
  const key = createHash('sha256').update(JSON.stringify([client.endpoint.href, loadSaved()?.accessKey ?? '', name, remote, size])).digest('hex');
  return path.join(path.dirname(configPath()), 'uploads', `${key.slice(0, 32)}.json`);
}

/** The server's offset for an upload, or null when the session is gone (finished, expired or revoked). */
async function serverOffset(url: string): Promise<number | null> {
  const head = await transfer('HEAD', url, TUS);
  if (head.status !== 200) return null;
  const offset = Number(head.headers['upload-offset']);
  return Number.isFinite(offset) ? offset : null;
}

const mib = (n: number) => (n / 1024 ** 2).toFixed(1);

async function upload(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'chunk-size': { type: 'string' }, quiet: { type: 'boolean', default: false } } });
  const [name, local, remoteArg] = positionals;
  if (!name || !local) throw new UsageError('folder upload needs NAME and LOCAL_FILE');
  const chunk = values['chunk-size'] ? parseSize(values['chunk-size']) : DEFAULT_CHUNK;
  const stat = statSync(local);
  if (!stat.isFile()) throw new UsageError(`${local} is not a file`);
  const size = stat.size;
  const remote = remoteArg && !remoteArg.endsWith('/') ? remoteArg : `${remoteArg ?? ''}${path.basename(local)}`;
  const client = signedClient();
  const stateFile = statePath(client, name, remote, size);

  let url: string | null = null;
  let offset: number | null = null;
  if (existsSync(stateFile)) {
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as UploadState;
    offset = await serverOffset(saved.url).catch(() => null);
    if (offset !== null) {
      url = saved.url;
      if (!values.quiet) process.stderr.write(`resuming at ${offset} of ${size} bytes\n`);
    } else rmSync(stateFile, { force: true });
  }
  if (!url) {
    const { token, url: base } = await client.call('POST', `${folderPath(name)}/request-upload`, { body: { path: remote, size } });
    url = `${base}?token=${encodeURIComponent(token)}`;
    mkdirSync(path.dirname(stateFile), { recursive: true, mode: 0o700 });
    writeFileSync(stateFile, JSON.stringify({ url, folder: name, remote, size } satisfies UploadState), { mode: 0o600 });
    offset = 0;
  }

  const done = offset ?? 0;
  if (size === 0) {
    const reply = await transfer('PATCH', url, { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0', 'Content-Length': '0' });
    if (reply.status !== 204) throw new Error(`the upload was refused (${reply.status}): ${reply.body}`);
  }
  if (done < size) await tusUpload(local, url, size, chunk, values.quiet!);
  rmSync(stateFile, { force: true });
  return { uploaded: remote, size };
}

/**
 * Sends the rest of the file with tus-js-client from the server's offset (it asks HEAD first), one PATCH per chunk.
 * A dropped connection is retried after a HEAD; a refusal (4xx other than 409/423) ends the command.
 */
function tusUpload(local: string, url: string, size: number, chunkSize: number, quiet: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(local), {
      uploadUrl: url,
      uploadSize: size,
      chunkSize,
      retryDelays: [250, 1000, 2000, 4000, 8000],
      storeFingerprintForResuming: false,
      onShouldRetry: (err) => {
        const status = err.originalResponse?.getStatus() ?? 0;
        const retry = status === 0 || status >= 500 || status === 409 || status === 423;
        if (retry && !quiet) process.stderr.write(`connection dropped (${err.message.split(',')[0]}); asking the server where to resume\n`);
        return retry;
      },
      onChunkComplete: (_chunk, accepted, total) => {
        if (!quiet) process.stderr.write(`uploaded ${accepted} / ${total} bytes (${mib(accepted)} / ${mib(total)} MiB, ${total ? Math.floor((accepted / total) * 100) : 100}%)\n`);
      },
      onSuccess: () => resolve(),
      onError: (err) => reject(new Error(`the upload failed: ${err.message}`)),
    });
    upload.start();
  });
}

async function download(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { archive: { type: 'boolean', default: false }, quiet: { type: 'boolean', default: false } } });
  const [name, remote, localArg] = positionals;
  if (!name || !remote) throw new UsageError('folder download needs NAME and REMOTE_PATH');
  const base = path.basename(remote.replace(/\/+$/, '')) || name;
  const local = localArg ?? (values.archive ? `${base}.zip` : base);
  const { token, url } = await signedClient().call('POST', `${folderPath(name)}/request-download`, { body: { path: remote, archive: values.archive } });
  const transport = url.startsWith('https:') ? https : http;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    transport.get(`${url}?token=${encodeURIComponent(token)}`, resolve).on('error', reject);
  });
  if (res.statusCode !== 200) {
    let text = '';
    for await (const c of res) text += c;
    throw new Error(`the download was refused (${res.statusCode}): ${text}`);
  }
  const total = Number(res.headers['content-length'] ?? NaN);
  let received = 0;
  let shown = 0;
  res.on('data', (c: Buffer) => {
    received += c.length;
    if (!values.quiet && received - shown >= DEFAULT_CHUNK) {
      shown = received;
      process.stderr.write(`downloaded ${mib(received)}${Number.isFinite(total) ? ` / ${mib(total)}` : ''} MiB\n`);
    }
  });
  const partial = `${local}.berth-part`;
  try {
    await pipeline(res, createWriteStream(partial));
    if (Number.isFinite(total) && received !== total) throw new Error(`the download ended after ${received} of ${total} bytes`);
    renameSync(partial, local);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  return { downloaded: remote, file: local, size: received };
}

async function clone(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { cloneable: { type: 'boolean', default: false } } });
  const [name, target] = positionals;
  if (!name || !target) throw new UsageError('folder clone needs NAME and TARGET');
  const client = signedClient();
  const created = await client.call('POST', `${folderPath(name)}/clone`, { body: { target_name: target, cloneable: values.cloneable } });
  await followTask(client, created.bgtask_id, { name: 'clone', verb: 'cloned', unit: 'entries' });
  return { ...created, status: 'done' };
}
