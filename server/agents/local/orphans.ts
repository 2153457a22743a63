/**
 * Sandboxes nobody accounts for, found and ended when the manager starts. A launch persists its intent before it
 * spawns anything (the kernel is PREPARING on its agent in the database), and every sandbox carries durable
 * markers from before its first process exists: its directory <data>/kernels/<kernel id> (made first), the
 * command lines of its launcher and of bubblewrap (which bind that directory), and its cgroups (named after the
 * kernel id, ./cgroups). A manager killed between the spawn and storing the sandbox's pid (a launch waiting for
 * its runner, a restart, a destruction) leaves a sandbox the database cannot name; after the sessions the
 * database lists have been adopted (server/sessions/reconcile.ts), every sandbox of this data directory that no
 * agent holds is killed with everything in it.
 *
 * Only this data directory's kernels are considered: other Berth instances on the machine (tests, a second data
 * directory) keep theirs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../../app';
import { KernelCgroup } from './cgroups';
import { isRunning, killTree } from './process-tree';

const KERNEL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GONE_WITHIN_MS = 5_000;

export interface SandboxTrace {
  kernelId: string;
  /** Processes of the sandbox: the launcher and bubblewrap by command line, the rest by cgroup. */
  pids: number[];
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Process ids by kernel id, for every process whose command line names a kernel directory under `kernelsDir`. */
function processesNaming(kernelsDir: string): Map<string, number[]> {
  const prefix = `${kernelsDir}/`;
  const found = new Map<string, number[]>();
  for (const entry of listDir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    for (const arg of cmdline.split('\0')) {
      if (!arg.startsWith(prefix)) continue;
      const kernelId = arg.slice(prefix.length).split('/')[0];
      if (!KERNEL_ID.test(kernelId)) continue;
      found.set(kernelId, [...(found.get(kernelId) ?? []), pid]);
      break;
    }
  }
  return found;
}

/** Every sandbox of this data directory that has a live process, by its markers. */
export function findSandboxes(dataDir: string): SandboxTrace[] {
  const kernelsDir = path.join(dataDir, 'kernels');
  const byCommandLine = processesNaming(kernelsDir);
  const kernelIds = new Set([...listDir(kernelsDir).filter((name) => KERNEL_ID.test(name)), ...byCommandLine.keys()]);
  const traces: SandboxTrace[] = [];
  for (const kernelId of kernelIds) {
    const pids = [...new Set([...(byCommandLine.get(kernelId) ?? []), ...new KernelCgroup(kernelId).pids()])].filter(isRunning);
    if (pids.length) traces.push({ kernelId, pids });
  }
  return traces;
}

/**
 * Kills every sandbox of the data directory that no agent holds, waits for its processes to go and removes its
 * cgroups. Which sandboxes are held is decided synchronously with finding them, so a kernel being created
 * meanwhile (it is held from its spawn on) is never taken for an orphan. Answers the kernel ids ended.
 */
export async function endOrphanSandboxes(app: App): Promise<string[]> {
  const held = (kernelId: string) => [...app.agents.values()].some((agent) => agent.isAlive(kernelId));
  const orphans = findSandboxes(app.settings.dataDir).filter((trace) => !held(trace.kernelId));
  for (const orphan of orphans) {
    app.log.warn({ kernelId: orphan.kernelId, pids: orphan.pids }, 'ending a sandbox no session accounts for');
    const cgroup = new KernelCgroup(orphan.kernelId);
    const deadline = Date.now() + GONE_WITHIN_MS;
    do {
      for (const pid of [...orphan.pids, ...cgroup.pids()]) killTree(pid);
      if (orphan.pids.every((pid) => !isRunning(pid)) && cgroup.pids().length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (Date.now() < deadline);
    cgroup.remove();
  }
  return orphans.map((orphan) => orphan.kernelId);
}
