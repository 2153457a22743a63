'use client';
/**
 * Data hooks of the sessions pages: the list (GraphQL), one session (REST), its apps, logs and files, and the
 * actions on it. Everything is kept fresh by the session event stream, with polling as the fallback while the
 * stream is down and, for a session in a passing state, as a safety net.
 */
import { useCallback, useEffect, useRef } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { ManagerError, problemFrom } from '@/components/api/problem';
import { managerFetch, managerSend, RELAY_PREFIX, useManager, useServerRendered } from '@/components/api/useManager';
import { graphql } from '@/components/api/graphql';
import { USABLE_STATUSES, type ExecutionResult, type FileListing, type ServicePort, type SessionInfo } from './model';
import { SESSION_LIST_QUERY, sessionListKey, sessionListVariables, type SessionListView, type SessionPage } from './sessionListQuery';
import { useSessionEvents, type SessionEvent } from './sessionEvents';

const sessionPath = (id: string) => `/session/${encodeURIComponent(id)}`;
const DEBOUNCE_MS = 250;

/** A callback that runs `revalidate` once per burst of events. */
function useDebounced(revalidate: () => void): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(revalidate);
  useEffect(() => {
    latest.current = revalidate;
  });
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, DEBOUNCE_MS);
  }, []);
}

function fetchSessionPage(view: SessionListView): Promise<SessionPage> {
  return graphql<{ compute_session_list: SessionPage }>(SESSION_LIST_QUERY, sessionListVariables(view)).then((d) => d.compute_session_list);
}

/**
 * One page of the user's sessions (their domain's for admins), paged, searched and sorted by the manager so a
 * thousand sessions cost one page; live through the event stream.
 */
export function useSessionList(view: SessionListView) {
  const { mutate } = useSWRConfig();
  const key = sessionListKey(view);
  // The page's server render reads its first view (app/(dashboard)/sessions/page.tsx): its rows are in the HTML.
  const serverRendered = useServerRendered(key);
  const revalidate = useDebounced(() => void mutate((other) => Array.isArray(other) && other[0] === 'sessions'));
  const connected = useSessionEvents((event) => {
    if (event.name.startsWith('session_')) revalidate();
  });
  return useSWR<SessionPage, ManagerError>(key, () => fetchSessionPage(view), {
    revalidateOnMount: !serverRendered,
    keepPreviousData: true,
    refreshInterval: connected ? 60_000 : 5_000,
  });
}

const PASSING = ['PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RESTARTING', 'TERMINATING'];

/** One session (by id or name), refreshed on its events. */
export function useSession(id: string) {
  const target = useRef<{ info?: SessionInfo; revalidate?: () => void }>({});
  const connected = useSessionEvents((event: SessionEvent) => {
    const { info, revalidate } = target.current;
    if (info && (event.sessionId === info.sessionId || event.sessionName === info.sessionName)) revalidate?.();
  });
  const swr = useManager<SessionInfo>(sessionPath(id), {
    keepPreviousData: true,
    refreshInterval: (latest) => (latest && PASSING.includes(latest.status) ? 2_000 : connected ? 30_000 : 5_000),
  });
  const { data, mutate } = swr;
  const revalidate = useDebounced(() => void mutate());
  useEffect(() => {
    target.current = { info: data, revalidate };
  }, [data, revalidate]);
  return swr;
}

export function isUsable(info: SessionInfo | undefined): boolean {
  return Boolean(info && USABLE_STATUSES.includes(info.status));
}

/** Statuses whose destruction needs `forced=true` (CONTRACT §5.2). */
const FORCED = ['SCHEDULED', 'PREPARING', 'TERMINATING', 'ERROR', 'PULLING'];

export function terminateSession(id: string, status: string): Promise<unknown> {
  return managerFetch(`${sessionPath(id)}${FORCED.includes(status) ? '?forced=true' : ''}`, { method: 'DELETE' });
}

export function restartSession(id: string): Promise<unknown> {
  return managerSend('PATCH', sessionPath(id));
}

export function renameSession(id: string, name: string): Promise<unknown> {
  return managerSend('POST', `${sessionPath(id)}/rename`, { name });
}

/** One step of running code in the session's kernel: a new query, input it waits for, or continuing a run. */
export interface ExecutionRequest {
  mode: 'query' | 'input' | 'continue';
  runId: string | null;
  code: string;
}

export async function executeCode(id: string, request: ExecutionRequest): Promise<ExecutionResult> {
  const { result } = await managerSend<{ result: ExecutionResult }>('POST', sessionPath(id), request);
  return result;
}

/** Interrupts the code running in the session's kernel; best effort (a run that already ended has nothing to stop). */
export function interruptCode(id: string): Promise<unknown> {
  return managerSend('POST', `${sessionPath(id)}/interrupt`).catch(() => undefined);
}

/**
 * Saves the session's /home/work as an image of the user's own (`tag` names it) and waits until the manager has
 * written it (the copy runs in the background); answers the new image's name. A commit that ended without an image
 * is an error, not a success.
 */
const COMMIT_WAIT_MS = 30 * 60_000;

export async function commitSession(id: string, tag: string): Promise<string> {
  const mine = () => graphql<{ customized_images: { name: string }[] }>('{ customized_images { name } }').then((d) => d.customized_images.map((i) => i.name));
  const before = new Set(await mine());
  await managerSend('POST', `${sessionPath(id)}/commit`, tag ? { filename: tag } : {});
  // A large image takes minutes to write; past COMMIT_WAIT_MS the dialog stops waiting (the commit goes on).
  const deadline = Date.now() + COMMIT_WAIT_MS;
  while ((await managerFetch<{ status: 'ready' | 'ongoing' }>(`${sessionPath(id)}/commit`)).status === 'ongoing') {
    if (Date.now() > deadline) throw new ManagerError(504, { title: 'The image is still being written', detail: 'The commit goes on in the background; the image appears under “Your images” when it is done.' });
    await new Promise((r) => setTimeout(r, 1000));
  }
  const made = (await mine()).find((name) => !before.has(name));
  if (!made) throw new ManagerError(500, { title: 'The image was not saved', detail: 'The commit ended without an image; the session’s logs may say why.' });
  return made;
}

export function useSessionApps(id: string, enabled: boolean) {
  return useManager<ServicePort[]>(enabled ? `/stream/session/${encodeURIComponent(id)}/apps` : null, { revalidateOnFocus: false });
}

/**
 * Starts an app and answers the app proxy's one-time address for it (through the dashboard's own
 * /sessions/<id>/apps/<app> handler, which talks to the app proxy).
 */
export async function openAppUrl(id: string, app: string): Promise<string> {
  const response = await fetch(`/sessions/${encodeURIComponent(id)}/apps/${encodeURIComponent(app)}`, {
    method: 'POST',
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new ManagerError(response.status, await problemFrom(response));
  const { url } = (await response.json()) as { url: string };
  return url;
}

export function useSessionLogs(id: string, enabled: boolean) {
  return useManager<{ result: { logs: string } }>(enabled ? `${sessionPath(id)}/logs` : null, { revalidateOnFocus: false, keepPreviousData: true });
}

export function useSessionFiles(id: string, path: string, enabled: boolean) {
  return useManager<FileListing>(enabled ? `${sessionPath(id)}/files?path=${encodeURIComponent(path || '.')}` : null, {
    revalidateOnFocus: false,
    keepPreviousData: true,
  });
}

/** The relay address that downloads one file of the session's /home/work. */
export function downloadUrl(id: string, file: string): string {
  return `${RELAY_PREFIX}${sessionPath(id)}/download_single?file=${encodeURIComponent(file)}`;
}

export const MAX_UPLOAD_FILES = 20;
export const MAX_UPLOAD_BYTES = 1024 * 1024;

/**
 * Uploads files into a directory of /home/work (multipart, one `src` part per file named by its destination),
 * reporting progress as a fraction; XMLHttpRequest because fetch cannot report upload progress.
 */
export function uploadFiles(id: string, directory: string, files: File[], onProgress: (fraction: number) => void): Promise<void> {
  const form = new FormData();
  const prefix = directory && directory !== '.' ? `${directory.replace(/\/+$/, '')}/` : '';
  for (const file of files) form.append('src', file, prefix + file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${RELAY_PREFIX}${sessionPath(id)}/upload`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      let problem: ManagerError['problem'];
      try {
        problem = JSON.parse(xhr.responseText) as ManagerError['problem'];
      } catch {
        problem = { title: xhr.statusText || `HTTP ${xhr.status}`, detail: xhr.responseText.slice(0, 500) || undefined };
      }
      reject(new ManagerError(xhr.status, problem));
    };
    xhr.onerror = () => reject(new ManagerError(0, { title: 'Upload failed', detail: 'The dashboard could not be reached.' }));
    xhr.send(form);
  });
}
