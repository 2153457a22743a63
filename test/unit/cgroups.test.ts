/**
 * A kernel's cgroups go when it ends, even when its last tasks leave them a moment after the kill (rmdir answers
 * EBUSY until then), and a group the same kernel creates again meanwhile (a restart keeps the id) stays.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { detectCgroups, KernelCgroup } from '../../server/agents/local/cgroups';
import { waitFor } from '../helpers/poll';

const exists = (cgroup: KernelCgroup) => cgroup.directories().map((dir) => existsSync(dir));

/** A process inside the kernel's groups, as the launcher puts the sandbox there. */
function startInside(cgroup: KernelCgroup): ChildProcess {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  for (const procs of cgroup.create({ memoryBytes: 256 * 1024 ** 2, cpus: 1, pids: 64 })) writeFileSync(procs, String(child.pid));
  return child;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

// Without a writable cgroup hierarchy (an unprivileged run) there are no groups to remove.
describe.skipIf(detectCgroups().mode === 'none')('removing a kernel cgroup', () => {
  it('removes the groups of a kernel that has ended', () => {
    const cgroup = new KernelCgroup(randomUUID());
    cgroup.create({});
    expect(exists(cgroup).every(Boolean)).toBe(true);
    cgroup.remove();
    expect(exists(cgroup).some(Boolean)).toBe(false);
  });

  it('removes them once the last task has left, when a task was still inside at the first try', async () => {
    const cgroup = new KernelCgroup(randomUUID());
    const child = startInside(cgroup);
    started.push(child);
    cgroup.remove();
    expect(exists(cgroup).every(Boolean)).toBe(true); // busy: still there
    child.kill('SIGKILL');
    await waitFor(async () => !exists(cgroup).some(Boolean), 5_000);
  });

  it('keeps the groups the same kernel created again before its old tasks left', async () => {
    const kernelId = randomUUID();
    const old = new KernelCgroup(kernelId);
    const child = startInside(old);
    started.push(child);
    old.remove();
    const restarted = new KernelCgroup(kernelId);
    restarted.create({});
    child.kill('SIGKILL');
    await waitFor(async () => restarted.pids().length === 0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // several retry periods
    expect(exists(restarted).every(Boolean)).toBe(true);
    restarted.remove();
    expect(exists(restarted).some(Boolean)).toBe(false);
  });
});
