'use client';
/**
 * Uploads into one directory of a folder, one file after another, with the progress of each for UploadPanel; the
 * file list is refreshed after each file so what has arrived shows at once. Cancel aborts the file in flight and
 * the ones after it.
 */
import { useRef, useState } from 'react';
import { joinPath, uploadFile, type UploadProgress } from '../useFolders';

export function useUploads(folderId: string, dir: string, { onFileDone, onEnd, onError }: { onFileDone: () => Promise<unknown>; onEnd: () => Promise<unknown>; onError: (err: unknown) => void }) {
  const [uploads, setUploads] = useState<UploadProgress[] | null>(null);
  const [uploading, setUploading] = useState(false);
  const abort = useRef<AbortController | null>(null);

  async function upload(list: File[]) {
    if (list.length === 0 || uploading) return;
    onError(null);
    setUploading(true);
    const controller = new AbortController();
    abort.current = controller;
    const progress: UploadProgress[] = list.map((f) => ({ name: f.name, sent: 0, total: f.size, speed: 0 }));
    setUploads([...progress]);
    try {
      for (const [i, file] of list.entries()) {
        await uploadFile(
          folderId,
          joinPath(dir, file.name),
          file,
          (p) => {
            progress[i] = p;
            setUploads([...progress]);
          },
          controller.signal,
        );
        progress[i] = { ...progress[i], sent: file.size, total: file.size, speed: 0 };
        setUploads([...progress]);
        await onFileDone();
      }
    } catch (err) {
      setUploads(null);
      if (!(err instanceof DOMException && err.name === 'AbortError')) onError(err);
    } finally {
      abort.current = null;
      setUploading(false);
      await onEnd();
    }
  }

  return { uploads, uploading, upload, cancel: () => abort.current?.abort(), dismiss: () => setUploads(null) };
}
