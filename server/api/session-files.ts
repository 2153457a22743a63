/** §Sessions, files of a running session and commits: list, upload, download, download_single, commit. */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { route, type RawReply } from '../http/route';
import { list } from '../http/params';
import { findSession } from '../sessions/access';
import { sessionScratch, type Scratch } from '../sessions/files/scratch';
import { listFiles } from '../sessions/files/list';
import { parseUpload, writeUpload, UPLOAD_BODY_LIMIT } from '../sessions/files/upload';
import { downloadArchive, downloadSingle } from '../sessions/files/download';
import { commitStatus, startCommit } from '../image-builds/commit';
import type { App } from '../app';
import type { Principal } from '../auth/principal';

const byName = z.object({ session_name: z.string().min(1), owner_access_key: z.string().nullish() });
const lookup = (ctx: { app: App; principal: Principal; input: { session_name: string; owner_access_key?: string | null } }) =>
  findSession(ctx.app, ctx.principal, ctx.input.session_name, { ownerAccessKey: ctx.input.owner_access_key });

/** A download stops reading (and releases its descriptors) when the client goes away before the end. */
function streamTo(res: ServerResponse, reply: RawReply): RawReply {
  const body = reply.body;
  if (body instanceof Readable) res.once('close', () => body.destroy());
  return reply;
}

/** A download CONTRACT §7.2 serves on GET and POST alike, from the session's scratch directory. */
function downloadRoutes<I extends z.infer<typeof byName>>(
  path: string,
  input: z.ZodType<I>,
  summary: string,
  response: string,
  reply: (scratch: Scratch, input: I) => RawReply,
) {
  return (['GET', 'POST'] as const).map((method) =>
    route({
      method, path, privilege: 'user', status: 'FROZEN', input, summary, response,
      handler: async (ctx) => streamTo(ctx.res, reply(await sessionScratch(ctx.app, await lookup(ctx)), ctx.input)),
    }),
  );
}

const filesInput = byName.extend({ files: list(z.string()) });
const singleInput = byName.extend({ file: z.string() });

export const sessionFileRoutes = [
  route({
    method: 'GET', path: '/session/:session_name/files', privilege: 'user', status: 'FROZEN',
    input: byName.extend({ path: z.string().default('.') }),
    summary: "List one directory of the session's /home/work",
    response: '{files:[{filename,mode,size,ctime,mtime,atime}], folder_path, abspath, errors}',
    handler: async (ctx) => listFiles(await sessionScratch(ctx.app, await lookup(ctx)), ctx.input.path),
  }),
  route({
    method: 'POST', path: '/session/:session_name/upload', privilege: 'user', status: 'FROZEN', input: byName,
    body: 'raw', bodyLimit: UPLOAD_BODY_LIMIT,
    summary: 'Upload files into /home/work (multipart/form-data, "src" parts named by destination path; ≤20 files, ≤1 MiB each)',
    handler: async (ctx) => {
      const scratch = await sessionScratch(ctx.app, await lookup(ctx));
      const files = await parseUpload(ctx.req.headers['content-type'], ctx.rawBody);
      writeUpload(scratch, files);
      return {};
    },
  }),
  ...downloadRoutes('/session/:session_name/download', filesInput, 'Download up to 5 files or directories: multipart/mixed, one application/x-tar part each',
    'multipart/mixed', (scratch, input) => downloadArchive(scratch, input.files)),
  ...downloadRoutes('/session/:session_name/download_single', singleInput, 'Download one small file (≤100 MiB) as application/octet-stream',
    'application/octet-stream', (scratch, input) => downloadSingle(scratch, input.file)),
  route({
    method: 'POST', path: '/session/:session_name/commit', privilege: 'user', status: 'RUNNING',
    input: byName.extend({ login_session_token: z.string().nullish(), filename: z.string().nullish() }),
    summary: 'Commit the main kernel to a new image (a background task)',
    response: '{bgtask_id, kernel, path}',
    handler: async (ctx) => startCommit(ctx.app, await lookup(ctx), ctx.input.filename),
  }),
  route({
    method: 'GET', path: '/session/:session_name/commit', privilege: 'user', status: 'RUNNING',
    input: byName.extend({ login_session_token: z.string().nullish() }),
    summary: 'Whether the main kernel is being committed',
    response: '{status: "ready"|"ongoing", kernel}',
    handler: async (ctx) => commitStatus(ctx.app, await lookup(ctx)),
  }),
];
