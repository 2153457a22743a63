'use client';
/**
 * Data access for the folders pages: hooks per resource (the folder list, one folder, a directory) and the actions
 * on them, all through the signed /api/manager relay (invitations are in useInvitations.ts). File bytes go through
 * /api/storage (a token-authorized relay of the manager's transfer endpoints): uploads with tus, downloads by
 * navigation.
 */
import { Upload } from 'tus-js-client';
import { ManagerError, type ProblemBody } from '@/components/api/problem';
import { managerSend, useManager, useServerRendered } from '@/components/api/useManager';
import { FOLDER_LIST } from './folderListQuery';

export type Permission = 'ro' | 'rw' | 'wd';
export type UsageMode = 'general' | 'data' | 'model';

export interface FolderSummary {
  id: string;
  name: string;
  host: string;
  status: string;
  usage_mode: UsageMode;
  created_at: string;
  is_owner: boolean;
  permission: Permission;
  user_email: string | null;
  group_name: string | null;
  type: 'user' | 'group';
  cloneable: boolean;
  cur_size: number | null;
}

export interface FolderInfo extends FolderSummary {
  num_files: number;
  used_bytes: number;
  last_used: string | null;
}

export interface FileEntry {
  name: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK';
  size: number;
  mode: string;
  created: string;
  modified: string;
}

export const PERMISSION_LABELS: Record<Permission, string> = { ro: 'Read only', rw: 'Read & write', wd: 'Read, write & delete' };
export const USAGE_LABELS: Record<UsageMode, string> = { general: 'General', data: 'Data', model: 'Model' };

const enc = encodeURIComponent;

/** Folders in the trash keep listing (with their status) until purged; the pages leave them out. */
const TRASHED = new Set(['delete-pending', 'delete-ongoing', 'delete-complete', 'delete-error']);
const MOUNTABLE = new Set(['ready', 'performing', 'cloning', 'mounted']);
export const isTrashed = (folder: FolderSummary) => TRASHED.has(folder.status);
export const isMountable = (folder: FolderSummary) => MOUNTABLE.has(folder.status);

const FOLDER_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const folderNameProblem = (name: string) => (FOLDER_NAME.test(name) ? null : 'Use letters, digits, dots, dashes and underscores (at most 64).');

/** The manager's folder list (every folder the user reaches; the page pages it). */
export function useFolders() {
  // The folders page's server render reads the list (app/(dashboard)/folders/page.tsx): its rows are in the HTML.
  const serverRendered = useServerRendered(FOLDER_LIST);
  return useManager<FolderSummary[]>(FOLDER_LIST, { refreshInterval: 10_000, revalidateOnMount: !serverRendered });
}

export function useFolder(id: string) {
  return useManager<FolderInfo>(`/folders/${enc(id)}`);
}

export function useFolderFiles(id: string, dir: string) {
  return useManager<{ items: FileEntry[] }>(`/folders/${enc(id)}/files?path=${enc(dir)}`, { keepPreviousData: true });
}

export const joinPath = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

export interface CreateFolderInput {
  name: string;
  usage_mode: UsageMode;
  permission: Permission;
  cloneable: boolean;
}

export const createFolder = (input: CreateFolderInput) => managerSend<{ id: string; name: string }>('POST', '/folders', input);
/** Moves the folder to the trash (its owner, or a manager of a project folder); its name is free again. */
export const deleteFolder = (id: string) => managerSend('DELETE', `/folders/${enc(id)}`);
export const renameFolder = (id: string, newName: string) => managerSend('POST', `/folders/${enc(id)}/rename`, { new_name: newName });
/** Gives up the caller's access to a folder another user shared with them. */
export const leaveFolder = (id: string) => managerSend('POST', `/folders/${enc(id)}/leave`, {});
export const makeDirectory = (id: string, path: string) => managerSend('POST', `/folders/${enc(id)}/mkdir`, { path, parents: true });
export const renameEntry = (id: string, targetPath: string, newName: string) =>
  managerSend('POST', `/folders/${enc(id)}/rename-file`, { target_path: targetPath, new_name: newName });
export const moveEntry = (id: string, src: string, dst: string) => managerSend('POST', `/folders/${enc(id)}/move-file`, { src, dst });
export const deleteEntries = (id: string, files: string[]) => managerSend('DELETE', `/folders/${enc(id)}/delete-files`, { files, recursive: true });
export const cloneFolder = (id: string, input: { target_name: string; usage_mode: UsageMode; permission: Permission; cloneable: boolean }) =>
  managerSend<{ bgtask_id: string; id: string; name: string }>('POST', `/folders/${enc(id)}/clone`, input);

/** The dashboard's path for a transfer URL the manager handed out (on its own port): same query, our relay. */
function relayed(url: string, token: string, extra: Record<string, string> = {}): string {
  const endpoint = new URL(url, 'http://manager.invalid').pathname.replace(/^\/storage\//, '');
  const query = new URLSearchParams({ token, ...extra });
  return `/api/storage/${endpoint}?${query.toString()}`;
}

export interface UploadProgress {
  name: string;
  sent: number;
  total: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
}

/**
 * Uploads one file to `path` in the folder: request-upload opens the tus session, tus-js-client resumes it through
 * the storage relay (HEAD, then PATCH), retrying from the server's offset after a dropped connection.
 */
export async function uploadFile(id: string, path: string, file: File, onProgress: (p: UploadProgress) => void, signal: AbortSignal): Promise<void> {
  const { token, url } = await managerSend<{ token: string; url: string }>('POST', `/folders/${enc(id)}/request-upload`, { path, size: file.size });
  const samples: { at: number; sent: number }[] = [{ at: performance.now(), sent: 0 }];
  await new Promise<void>((resolve, reject) => {
    const upload = new Upload(file, {
      uploadUrl: relayed(url, token),
      chunkSize: 16 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000],
      storeFingerprintForResuming: false,
      metadata: { filename: file.name },
      onProgress(sent, total) {
        const now = performance.now();
        samples.push({ at: now, sent });
        while (samples.length > 2 && now - samples[0].at > 3000) samples.shift();
        const first = samples[0];
        const seconds = (now - first.at) / 1000;
        onProgress({ name: file.name, sent, total, speed: seconds > 0 ? (sent - first.sent) / seconds : 0 });
      },
      onSuccess: () => resolve(),
      onError: (err) => reject(uploadError(err)),
    });
    signal.addEventListener(
      'abort',
      () => {
        void upload.abort(false);
        reject(new DOMException('The upload was cancelled.', 'AbortError'));
      },
      { once: true },
    );
    upload.start();
  });
}

/** A tus failure as a problem the page can show: the manager's problem+json when it sent one. */
function uploadError(err: Error): ManagerError {
  const response = (err as Error & { originalResponse?: { getBody(): string; getStatus(): number } | null }).originalResponse;
  if (response) {
    try {
      const body = JSON.parse(response.getBody()) as ProblemBody;
      if (body && typeof body.title === 'string') return new ManagerError(response.getStatus(), body);
    } catch {
      // not problem+json
    }
  }
  return new ManagerError(0, { title: 'The upload stopped', detail: 'The connection to the dashboard was lost after several retries. Check your connection and upload the file again.' });
}

/** Starts a browser download of a file, or of a directory as a zip. */
export async function downloadEntry(id: string, path: string, directory: boolean): Promise<void> {
  const { token, url } = await managerSend<{ token: string; url: string }>('POST', `/folders/${enc(id)}/request-download`, { path, archive: directory });
  const link = document.createElement('a');
  link.href = relayed(url, token, directory ? { archive: 'true' } : {});
  link.download = '';
  document.body.appendChild(link);
  link.click();
  link.remove();
}
