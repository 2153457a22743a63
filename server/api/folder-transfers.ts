/** §Virtual folders, transfers (CONTRACT §9.4): tokens and URLs for the manager's /storage/upload and /storage/download. */
import { z } from 'zod';
import { route } from '../http/route';
import { bool, int } from '../http/params';
import { requestDownload, requestUpload } from '../storage/transfers/request';

const byName = z.object({ name: z.string().min(1) });

export const folderTransferRoutes = [
  route({
    method: 'POST', path: ['/folders/:name/request-upload', '/folders/:name/request_upload'], privilege: 'user', status: 'FROZEN',
    input: byName.extend({ path: z.string(), size: int().refine((n) => n >= 0, 'must be 0 or more') }),
    summary: 'A token and URL to upload one file with tus 1.0 (resumable)',
    response: '{"token":"<JWT>","url":"http://<host>:<manager port>/storage/upload"}',
    handler: ({ app, principal, req, input }) => requestUpload(app, principal, req, input),
  }),
  route({
    method: 'POST', path: ['/folders/:name/request-download', '/folders/:name/request_download'], privilege: 'user', status: 'FROZEN',
    input: byName.extend({ path: z.string().default(''), archive: bool().default(false) }),
    summary: 'A token and URL to download a file (with ranges) or a directory as a zip',
    response: '{"token":"<JWT>","url":"http://<host>:<manager port>/storage/download"}',
    handler: ({ app, principal, req, input }) => requestDownload(app, principal, req, input),
  }),
];
