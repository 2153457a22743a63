/**
 * The listing of one folder directory (`GET /folders/{name}/files`, CONTRACT §9.2):
 * `{"items":[{name,type,size,mode,created,modified}…],"files":"<the items as a JSON string>"}`.
 *
 * Flat memory for wide directories: the entries are measured once into columns (typed arrays, no object per entry),
 * with every descriptor closed and every error raised before the answer starts; the body is then rendered a slice
 * at a time, with backpressure. Both `items` and the legacy `files` string come from the same columns, so they
 * always agree, and neither is ever held whole. Names are sorted; symlinks are listed as themselves.
 */
import { Readable } from 'node:stream';
import { readdir } from 'node:fs/promises';
import { type FolderRoot, at, statEach, withLocated, withTargetDir } from '../host-path/folder';

const SLICE = 512;
const KIND = ['FILE', 'DIRECTORY', 'SYMLINK'] as const;

export interface Listing {
  readonly count: number;
  /** The JSON body, rendered on demand. */
  body(): Readable;
}

interface Columns {
  names: string[];
  kept: number;
  kind: Uint8Array;
  mode: Uint16Array;
  size: Float64Array;
  created: Float64Array;
  modified: Float64Array;
}

async function measure(fd: number): Promise<Columns> {
  const names = (await readdir(at(fd))).sort();
  const n = names.length;
  const c: Columns = { names, kept: 0, kind: new Uint8Array(n), mode: new Uint16Array(n), size: new Float64Array(n), created: new Float64Array(n), modified: new Float64Array(n) };
  await statEach(fd, names, (i, stat) => {
    // Gone since readdir: dropped, and the columns stay dense.
    if (!stat) return;
    const k = c.kept++;
    names[k] = names[i];
    c.kind[k] = stat.isDirectory() ? 1 : stat.isSymbolicLink() ? 2 : 0;
    c.mode[k] = stat.mode & 0o777;
    c.size[k] = stat.size;
    // Node's Stats dates are the rounded milliseconds; the same here.
    c.created[k] = Math.round(stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.ctimeMs);
    c.modified[k] = Math.round(stat.mtimeMs);
  });
  names.length = c.kept;
  return c;
}

function entryJson(c: Columns, i: number): string {
  return `{"name":${JSON.stringify(c.names[i])},"type":"${KIND[c.kind[i]]}","size":${c.size[i]},"mode":"${c.mode[i].toString(8).padStart(3, '0')}","created":"${new Date(c.created[i]).toISOString()}","modified":"${new Date(c.modified[i]).toISOString()}"}`;
}

/** A slice of entries as JSON array members; as the content of a JSON string when `quoted`. */
function slice(c: Columns, from: number, quoted: boolean): string {
  let text = '';
  for (let i = from; i < Math.min(from + SLICE, c.kept); i++) text += (i ? ',' : '') + entryJson(c, i);
  return quoted ? JSON.stringify(text).slice(1, -1) : text;
}

function* render(c: Columns): Generator<string> {
  yield '{"items":[';
  for (let i = 0; i < c.kept; i += SLICE) yield slice(c, i, false);
  yield '],"files":"[';
  for (let i = 0; i < c.kept; i += SLICE) yield slice(c, i, true);
  yield ']"}';
}

/** Measures the directory at `components` (following a final symlink that stays inside the folder). */
export async function listDirectory(root: FolderRoot, components: string[], field: string): Promise<Listing> {
  const columns = await withLocated(root, components, field, { followFinal: true }, (loc) => withTargetDir(root, loc, measure));
  return { count: columns.kept, body: () => Readable.from(render(columns), { objectMode: false }) };
}
