/**
 * Resource limits for one kernel through cgroups: v2 where the host delegates controllers, v1 otherwise (these
 * machines), and an honest "none" when neither can be written. The launcher script joins the groups before it
 * execs the sandbox, so every process of the kernel is inside them from the start.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KernelLimits, KernelStats } from '../agent';

export type CgroupMode = 'v2' | 'v1' | 'none';

const ROOT = '/sys/fs/cgroup';
const V1_CONTROLLERS = ['memory', 'cpu', 'cpuacct', 'pids', 'blkio'] as const;

/** Sums the byte counters of every device in an io.stat / blkio file; nulls when the file is not there. */
function sumIo(text: string | null, readPattern: RegExp, writePattern: RegExp): Pick<KernelStats, 'ioReadBytes' | 'ioWriteBytes'> {
  if (text === null) return { ioReadBytes: null, ioWriteBytes: null };
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((total, m) => total + Number(m[1]), 0);
  return { ioReadBytes: sum(readPattern), ioWriteBytes: sum(writePattern) };
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function tryWrite(file: string, value: string): boolean {
  try {
    writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

let detected: { mode: CgroupMode; reason: string } | undefined;

/** Which cgroup version Berth can use here, and why (reported by the agent). */
export function detectCgroups(): { mode: CgroupMode; reason: string } {
  if (detected) return detected;
  const v2Controllers = read(path.join(ROOT, 'cgroup.controllers'));
  if (v2Controllers && ['memory', 'pids'].every((c) => v2Controllers.split(' ').includes(c))) {
    const probe = path.join(ROOT, 'berth');
    try {
      mkdirSync(probe, { recursive: true });
      tryWrite(path.join(ROOT, 'cgroup.subtree_control'), '+memory +pids +cpu');
      tryWrite(path.join(probe, 'cgroup.subtree_control'), '+memory +pids +cpu');
      if (existsSync(path.join(probe, 'cgroup.procs'))) return (detected = { mode: 'v2', reason: 'cgroup v2 with memory, pids and cpu controllers' });
    } catch {
      /* fall through to v1 */
    }
  }
  const v1Writable = ['memory', 'pids'].every((c) => {
    try {
      mkdirSync(path.join(ROOT, c, 'berth'), { recursive: true });
      return existsSync(path.join(ROOT, c, 'berth', 'cgroup.procs'));
    } catch {
      return false;
    }
  });
  if (v1Writable) return (detected = { mode: 'v1', reason: 'cgroup v1 hierarchies (memory, cpu, pids)' });
  return (detected = { mode: 'none', reason: 'no writable cgroup hierarchy: memory, CPU and process limits are not enforced' });
}

export class KernelCgroup {
  readonly mode: CgroupMode;

  constructor(readonly kernelId: string) {
    this.mode = detectCgroups().mode;
  }

  /** The kernel's group directories: one under each v1 controller, or the one v2 group. */
  directories(): string[] {
    if (this.mode === 'v2') return [path.join(ROOT, 'berth', this.kernelId)];
    if (this.mode === 'v1') return V1_CONTROLLERS.map((c) => path.join(ROOT, c, 'berth', this.kernelId)).filter((d) => existsSync(path.dirname(d)) || this.ensureParent(d));
    return [];
  }

  private ensureParent(dir: string): boolean {
    try {
      mkdirSync(path.dirname(dir), { recursive: true });
      return true;
    } catch {
      return false;
    }
  }

  /** Creates the groups and writes the limits; returns the cgroup.procs files the launcher joins. */
  create(limits: KernelLimits): string[] {
    cancelRemoval(this.kernelId);
    const dirs = this.directories();
    for (const dir of dirs) mkdirSync(dir, { recursive: true });
    if (this.mode === 'v2') {
      const dir = dirs[0];
      if (limits.memoryBytes) {
        tryWrite(path.join(dir, 'memory.max'), String(limits.memoryBytes));
        tryWrite(path.join(dir, 'memory.swap.max'), '0');
      }
      if (limits.cpus) tryWrite(path.join(dir, 'cpu.max'), `${Math.round(limits.cpus * 100_000)} 100000`);
      if (limits.pids) tryWrite(path.join(dir, 'pids.max'), String(limits.pids));
    } else if (this.mode === 'v1') {
      const dir = (c: string) => path.join(ROOT, c, 'berth', this.kernelId);
      if (limits.memoryBytes) {
        tryWrite(path.join(dir('memory'), 'memory.limit_in_bytes'), String(limits.memoryBytes));
        tryWrite(path.join(dir('memory'), 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
      }
      if (limits.cpus) {
        tryWrite(path.join(dir('cpu'), 'cpu.cfs_period_us'), '100000');
        tryWrite(path.join(dir('cpu'), 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * 100_000)));
      }
      if (limits.pids) tryWrite(path.join(dir('pids'), 'pids.max'), String(limits.pids));
    }
    return dirs.map((dir) => path.join(dir, 'cgroup.procs'));
  }

  /** Every process id in the kernel's groups. */
  pids(): number[] {
    const found = new Set<number>();
    for (const dir of this.directories()) {
      for (const line of (read(path.join(dir, 'cgroup.procs')) ?? '').split('\n')) if (line) found.add(Number(line));
    }
    return [...found];
  }

  /** True when the kernel hit its memory limit and the OOM killer acted. */
  oomKilled(): boolean {
    if (this.mode === 'v2') {
      const events = read(path.join(ROOT, 'berth', this.kernelId, 'memory.events')) ?? '';
      return /oom_kill [1-9]/.test(events);
    }
    if (this.mode === 'v1') {
      const control = read(path.join(ROOT, 'memory', 'berth', this.kernelId, 'memory.oom_control')) ?? '';
      return /oom_kill [1-9]/.test(control);
    }
    return false;
  }

  stats(): KernelStats {
    if (this.mode === 'v2') {
      const dir = path.join(ROOT, 'berth', this.kernelId);
      const usec = /usage_usec (\d+)/.exec(read(path.join(dir, 'cpu.stat')) ?? '');
      const io = sumIo(read(path.join(dir, 'io.stat')), /rbytes=(\d+)/g, /wbytes=(\d+)/g);
      return {
        memoryBytes: numberOrNull(read(path.join(dir, 'memory.current'))),
        memoryPeakBytes: numberOrNull(read(path.join(dir, 'memory.peak'))),
        cpuUsedMs: usec ? Number(usec[1]) / 1000 : null,
        pids: numberOrNull(read(path.join(dir, 'pids.current'))),
        ...io,
      };
    }
    if (this.mode === 'v1') {
      const dir = (c: string, f: string) => path.join(ROOT, c, 'berth', this.kernelId, f);
      const ns = numberOrNull(read(dir('cpuacct', 'cpuacct.usage')));
      const io = sumIo(read(dir('blkio', 'blkio.throttle.io_service_bytes')), /^\S+ Read (\d+)$/gm, /^\S+ Write (\d+)$/gm);
      return {
        memoryBytes: numberOrNull(read(dir('memory', 'memory.usage_in_bytes'))),
        memoryPeakBytes: numberOrNull(read(dir('memory', 'memory.max_usage_in_bytes'))),
        cpuUsedMs: ns === null ? null : ns / 1e6,
        pids: numberOrNull(read(dir('pids', 'pids.current'))),
        ...io,
      };
    }
    return { memoryBytes: null, memoryPeakBytes: null, cpuUsedMs: null, pids: null, ioReadBytes: null, ioWriteBytes: null };
  }

  /**
   * Removes the groups. A killed kernel's last tasks leave their groups a moment after the kill (an OOM-killed one
   * while it frees its memory), and rmdir answers EBUSY until then, so a busy group is tried again for a while,
   * unless the kernel (a restart keeps its id) creates its groups again meanwhile.
   */
  remove(): void {
    cancelRemoval(this.kernelId);
    removeWhenEmpty(this.kernelId, this.directories(), REMOVE_ATTEMPTS);
  }
}

const REMOVE_ATTEMPTS = 100;
const REMOVE_RETRY_MS = 50;
const pendingRemovals = new Map<string, NodeJS.Timeout>();

function cancelRemoval(kernelId: string): void {
  clearTimeout(pendingRemovals.get(kernelId));
  pendingRemovals.delete(kernelId);
}

function removeWhenEmpty(kernelId: string, dirs: string[], attemptsLeft: number): void {
  pendingRemovals.delete(kernelId);
  const busy = dirs.filter((dir) => {
    try {
      rmdirSync(dir);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EBUSY'; // ENOENT: already gone
    }
  });
  if (busy.length && attemptsLeft > 1) {
    pendingRemovals.set(kernelId, setTimeout(() => removeWhenEmpty(kernelId, busy, attemptsLeft - 1), REMOVE_RETRY_MS).unref());
  }
}

function numberOrNull(text: string | null): number | null {
  return text === null || text === '' ? null : Number(text);
}
