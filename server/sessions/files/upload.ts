/**
 * POST /session/{name}/upload: multipart/form-data whose file parts (`src`) carry the destination path, relative
 * to /home/work, as their filename (CONTRACT §7.2, §17: at most 20 files of at most 1 MiB each). The whole body is
 * parsed and every part checked before anything is written, so a refused upload writes nothing; each file is
 * then written to a temporary file beside its destination and renamed over it, owned by the kernel's user.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import busboy from 'busboy';
import { badRequest } from '../../http/problem';
import { ensureDirectory, giveTo, openInside, relativeToHome, resolveInScratch } from '../../host-path/kernel-home';
import type { Scratch } from './scratch';

export const MAX_UPLOAD_FILES = 20;
export const MAX_UPLOAD_FILE_BYTES = 1024 * 1024;
/** The multipart overhead allowed on top of the file data. */
export const UPLOAD_BODY_LIMIT = MAX_UPLOAD_FILES * MAX_UPLOAD_FILE_BYTES + 1024 * 1024;

interface UploadedFile {
  relative: string;
  data: Buffer;
}

/** Parses the multipart body completely, enforcing the limits; throws 400 on anything wrong. */
export function parseUpload(contentType: string | undefined, body: Buffer): Promise<UploadedFile[]> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
    return Promise.reject(badRequest('The upload must be multipart/form-data with one or more "src" file parts.', { src: 'multipart/form-data required' }));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        preservePath: true,
        defParamCharset: 'utf8',
        // One byte over the limit, so a file of exactly 1 MiB is accepted and a larger one is noticed.
        limits: { files: MAX_UPLOAD_FILES, fileSize: MAX_UPLOAD_FILE_BYTES + 1, fields: 100, fieldSize: 64 * 1024, parts: MAX_UPLOAD_FILES + 100 },
      });
    } catch (err) {
      reject(badRequest(`The multipart body cannot be read: ${err instanceof Error ? err.message : String(err)}`, { src: 'malformed multipart' }));
      return;
    }
    const files: UploadedFile[] = [];
    let failure: Error | null = null;
    const fail = (err: Error) => {
      failure ??= err;
    };
    parser.on('file', (_field, stream, info) => {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_UPLOAD_FILE_BYTES) chunks.push(chunk);
      });
      stream.on('limit', () => fail(badRequest(`${info.filename}: a file may be at most ${MAX_UPLOAD_FILE_BYTES} bytes.`, { src: 'file too large' })));
      stream.on('end', () => {
        if (size > MAX_UPLOAD_FILE_BYTES) {
          fail(badRequest(`${info.filename}: a file may be at most ${MAX_UPLOAD_FILE_BYTES} bytes.`, { src: 'file too large' }));
          return;
        }
        if (!info.filename) {
          fail(badRequest('Every file part needs a filename (its destination path).', { src: 'filename required' }));
          return;
        }
        try {
          const relative = relativeToHome(info.filename, 'src');
          if (relative === '') throw badRequest('src: a file cannot replace /home/work itself', { src: 'invalid destination' });
          files.push({ relative, data: Buffer.concat(chunks) });
        } catch (err) {
          fail(err as Error);
        }
      });
    });
    parser.on('filesLimit', () => fail(badRequest(`At most ${MAX_UPLOAD_FILES} files may be uploaded at once.`, { src: 'too many files' })));
    parser.on('partsLimit', () => fail(badRequest('The upload has too many parts.', { src: 'too many parts' })));
    parser.on('error', (err: Error) => fail(badRequest(`The multipart body cannot be read: ${err.message}`, { src: 'malformed multipart' })));
    parser.on('close', () => {
      if (failure) reject(failure);
      else if (!files.length) reject(badRequest('The upload carries no files.', { src: 'required' }));
      else resolve(files);
    });
    parser.end(body);
  });
}

/** Writes the parsed files into the session's /home/work. Every destination is checked before the first write. */
export function writeUpload(scratch: Scratch, files: UploadedFile[]): void {
  for (const file of files) {
    const target = resolveInScratch(scratch.root, file.relative, 'src', { allowMissing: true });
    if (target.stat?.isDirectory()) throw badRequest(`src: ${target.kernelPath} is a directory`, { src: 'destination is a directory' });
  }
  for (const file of files) {
    const dir = ensureDirectory(scratch.root, path.posix.dirname(file.relative), 'src', scratch.uid);
    const name = path.posix.basename(file.relative);
    const temp = path.join(dir, `.${name}.berth-upload-${randomBytes(6).toString('hex')}`);
    const fd = openInside(scratch.root, temp, 'src', constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    let written = false;
    try {
      for (let offset = 0; offset < file.data.length; ) offset += writeSync(fd, file.data, offset);
      fchmodSync(fd, 0o644);
      giveTo(fd, scratch.uid);
      fsyncSync(fd);
      written = true;
    } finally {
      closeSync(fd);
      if (!written) unlinkSync(temp);
    }
    try {
      // rename replaces a symlink at the destination instead of writing through it.
      renameSync(temp, path.join(dir, name));
    } catch (err) {
      unlinkSync(temp);
      if ((err as NodeJS.ErrnoException).code === 'EISDIR' || (err as NodeJS.ErrnoException).code === 'ENOTEMPTY') {
        throw badRequest(`src: /home/work/${file.relative} is a directory`, { src: 'destination is a directory' });
      }
      throw err;
    }
  }
}
