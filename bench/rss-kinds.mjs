// Where a Node process's resident memory is, by kind of mapping (/proc/PID/smaps), so a memory figure says what
// grew. Linux, x86-64. Anonymous memory is told apart by where it lies: glibc's malloc arenas are 64 MiB-aligned
// heaps in the mmap area; V8 places its heap pages at random addresses far below that area; the mmap area's other
// anonymous mappings are malloc's large blocks and thread stacks; a WebAssembly memory is a readable block right
// before its ≥ 1 GiB guard region (PGlite's database). These rules are heuristics of this platform, not an API.
import { readFileSync } from 'node:fs';

const MB64 = 64n * 1024n * 1024n;
const GIB = 1024n ** 3n;
/** Where the kernel's mmap area starts on x86-64 (the top 1/32 of the user address space and up). */
const MMAP_AREA = 0x7e0000000000n;

export const KINDS = ['V8 heap', 'V8 code', 'malloc (arenas, brk)', 'malloc large blocks, stacks', 'WebAssembly (PGlite)', 'node binary', 'shared libraries', 'other'];

function parse(pid) {
  const maps = [];
  let current;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3], name: head[4], rssKiB: 0 };
      maps.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rssKiB = Number(rss[1]);
  }
  return maps;
}

function kindOf(map, next) {
  if (map.name === '[heap]') return 'malloc (arenas, brk)';
  if (map.name.startsWith('/')) return map.name.endsWith('/node') ? 'node binary' : map.name.includes('.so') ? 'shared libraries' : 'other';
  if (map.name) return 'other'; // [stack], [vdso], …
  const guard = next && !next.name && next.perms === '---p' && next.start === map.end && next.end - next.start >= GIB;
  if (map.perms === 'rw-p' && guard) return 'WebAssembly (PGlite)';
  if (map.perms.includes('x')) return 'V8 code';
  if (map.start < MMAP_AREA) return 'V8 heap';
  return map.start % MB64 === 0n ? 'malloc (arenas, brk)' : 'malloc large blocks, stacks';
}

/** KiB resident by kind (KINDS), for one process; null when it is gone. */
export function rssKinds(pid) {
  let maps;
  try {
    maps = parse(pid);
  } catch {
    return null;
  }
  const kinds = Object.fromEntries(KINDS.map((kind) => [kind, 0]));
  maps.forEach((map, i) => (kinds[kindOf(map, maps[i + 1])] += map.rssKiB));
  return kinds;
}
