/**
 * Images are runtime definitions: an interpreter the kernel runner drives, minimum resources and the apps
 * (service ports) it offers. The built-in ones are written on every start so they follow the host: `jupyter`
 * appears where Jupyter is installed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { App } from '../app';
import { json } from '../db';
import type { Image, ServicePort } from '../db/schema';
import { Problem } from '../http/problem';

const MiB = 1024 * 1024;

export const JUPYTER_ARGV = [
  '/usr/bin/python3', '-m', 'notebook', '--no-browser', '--ip={host}', '--port={port}',
  '--NotebookApp.base_url={base_url}', '--NotebookApp.token=', '--NotebookApp.password=',
  '--NotebookApp.allow_origin=*', '--NotebookApp.allow_remote_access=True', '--notebook-dir=/home/work',
];

/**
 * `echo` on the shell image: a tiny HTTP and WebSocket echo server on node:http (Node is under /usr, so the sandbox
 * has it), for checking the app proxy by hand and for bench/apps.mjs. HTTP answers `<method> <path>` under the
 * app's base path (404 elsewhere); a WebSocket gets every data frame back, a ping a pong, a close a close. No
 * dependencies: the handshake and framing (RFC 6455, server frames unmasked) are written out below.
 */
const NODE = process.execPath.startsWith('/usr/') ? process.execPath : '/usr/bin/node';
const ECHO_SERVER = `
const http = require('node:http'), { createHash } = require('node:crypto');
const [port, base] = process.argv.slice(1);
const server = http.createServer((req, res) => {
  const found = req.url.startsWith(base);
  const body = found ? req.method + ' ' + req.url + '\\n' : 'not under ' + base + '\\n';
  res.writeHead(found ? 200 : 404, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.on('upgrade', (req, socket) => {
  socket.on('error', () => socket.destroy());
  socket.on('end', () => socket.end());
  const key = req.headers['sec-websocket-key'];
  if (!key) return socket.end('HTTP/1.1 400 Bad Request\\r\\nConnection: close\\r\\n\\r\\n');
  const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2) {
      const fin = buf[0] & 0x80, op = buf[0] & 0x0f, masked = buf[1] & 0x80;
      let len = buf[1] & 0x7f, at = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
      if (buf.length < at + (masked ? 4 : 0) + len) return;
      const mask = masked ? buf.subarray(at, at + 4) : null;
      if (masked) at += 4;
      const data = Buffer.from(buf.subarray(at, at + len));
      if (mask) for (let i = 0; i < len; i++) data[i] ^= mask[i & 3];
      buf = buf.subarray(at + len);
      if (op === 0x0a) continue;
      const head = len < 126 ? Buffer.from([fin | (op === 0x09 ? 0x0a : op), len])
        : len < 65536 ? Buffer.from([fin | op, 126, len >> 8, len & 255])
        : Buffer.concat([Buffer.from([fin | op, 127]), Buffer.from(new BigUint64Array([BigInt(len)]).buffer).reverse()]);
      socket.write(Buffer.concat([head, data]));
      if (op === 0x08) return socket.end();
    }
  });
});
server.listen(Number(port), process.env.BERTH_APP_HOST || '127.0.0.1');
`;

interface BuiltinImage {
  name: string;
  aliases: string[];
  runtime: 'python' | 'shell';
  tag: string;
  limits: Record<string, { min: string; max?: string | null }>;
  ports: ServicePort[];
}

function builtins(): BuiltinImage[] {
  const jupyter: ServicePort[] = existsSync('/usr/bin/jupyter-notebook') || existsSync('/usr/lib/python3/dist-packages/notebook')
    ? [{ name: 'jupyter', protocol: 'http', ports: [8080], argv: JUPYTER_ARGV }]
    : [];
  const echo: ServicePort[] = existsSync(NODE) ? [{ name: 'echo', protocol: 'http', ports: [8090], argv: [NODE, '-e', ECHO_SERVER, '{port}', '{base_url}'] }] : [];
  return [
    { name: 'berth/python:3.11', aliases: ['python', 'python:3.11', 'python3'], runtime: 'python', tag: '3.11', limits: { cpu: { min: '0.5' }, mem: { min: String(256 * MiB) } }, ports: jupyter },
    { name: 'berth/shell:5.2', aliases: ['shell', 'bash'], runtime: 'shell', tag: '5.2', limits: { cpu: { min: '0.5' }, mem: { min: String(128 * MiB) } }, ports: echo },
  ];
}

/** The canonical names of the built-in images. */
export function builtinImageNames(): string[] {
  return builtins().map((image) => image.name);
}

/**
 * Writes the built-in images. On start (`reset` false) an existing image keeps the labels and limits an operator
 * gave it (modify_image) and only follows the host's apps; a rescan (`reset` true) writes everything again.
 */
export async function seedImages(app: App, { reset = false } = {}): Promise<void> {
  for (const image of builtins()) {
    const existing = await app.db.selectFrom('images').select('id').where('name', '=', image.name).executeTakeFirst();
    const id = existing?.id ?? randomUUID();
    const hostValues = { runtime: image.runtime, tag: image.tag, service_ports: json(image.ports) };
    const values = { ...hostValues, resource_limits: json(image.limits), labels: json({ 'ai.backend.runtime-type': image.runtime }) };
    if (existing) await app.db.updateTable('images').set(reset ? values : hostValues).where('id', '=', id).execute();
    else await app.db.insertInto('images').values({ id, name: image.name, ...values }).execute();
    for (const alias of image.aliases) {
      await app.db.insertInto('image_aliases').values({ alias, image_id: id }).onConflict((oc) => oc.column('alias').doNothing()).execute();
    }
  }
}

/** An image by canonical name, alias or id. */
export async function resolveImage(app: App, reference: string): Promise<Image> {
  const byAlias = await app.db
    .selectFrom('image_aliases')
    .innerJoin('images', 'images.id', 'image_aliases.image_id')
    .selectAll('images')
    .where('image_aliases.alias', '=', reference)
    .where('images.is_active', '=', true)
    .executeTakeFirst();
  if (byAlias) return byAlias;
  const byName = await app.db
    .selectFrom('images')
    .selectAll()
    .where((eb) => eb.or([eb('name', '=', reference), ...(isUuid(reference) ? [eb('id', '=', reference)] : [])]))
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!byName) throw new Problem('invalid-api-params', `Unknown image: ${reference}`, { image: 'unknown image' });
  return byName;
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
