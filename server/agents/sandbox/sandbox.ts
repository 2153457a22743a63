/**
 * Builds the command that starts one kernel: a launcher shell joins the kernel's cgroups, then execs bubblewrap
 * (own PID, mount, IPC and UTS namespaces; the host's /usr read-only; the scratch directory as /home/work).
 * As root, bubblewrap mounts with root's rights (so data directories under /root work) and setpriv drops to the
 * kernel's unprivileged uid with no capabilities before the runner starts; as another user, bubblewrap uses a
 * user namespace instead. No --die-with-parent: sessions outlive the manager.
 */
import path from 'node:path';
import type { KernelSpec } from '../agent';
import { XTERM_IN_SANDBOX, xtermFiles } from './xterm';
import { kernelEnviron } from './kernel-env';

/** The interpreter the runner runs on: the host's, seen through the sandbox's read-only /usr. */
export const SANDBOX_PYTHON = '/usr/bin/python3';
export const RUNNER_IN_SANDBOX = '/opt/berth/kernel_runner.py';
/** The runner compiled for the host's interpreter (./runner-bytecode), when the backend has it. */
export const RUNNER_BYTECODE_IN_SANDBOX = '/opt/berth/kernel_runner.pyc';
/** The `ttyd` app (../../apps/session-apps), next to the runner on the host. */
export const WEB_TERMINAL_IN_SANDBOX = '/opt/berth/web_terminal.py';
/** The dashboard's xterm.js for the ttyd page (none when the package is not installed). */
function xtermBinds(): string[] {
  const files = xtermFiles();
  if (!files.length) return [];
  // Made explicitly: a directory bwrap creates for a bind is mode 0700, unreadable by the kernel's user.
  return ['--perms', '0755', '--dir', XTERM_IN_SANDBOX, ...files.flatMap((f) => ['--ro-bind', f.host, f.inSandbox])];
}
export const RUN_DIR_IN_SANDBOX = '/run/berth';
export const SOCKET_IN_SANDBOX = `${RUN_DIR_IN_SANDBOX}/kernel.sock`;

/** What of the kernel's spec the sandbox is made from (the same for every backend that runs one). */
export type SandboxedKernel = Pick<KernelSpec, 'runtime' | 'hostname' | 'environ' | 'mounts'>;

/** Where the backend placed the kernel on its host. */
export interface SandboxHost {
  /** The kernel's uid; null when Berth is not root (the sandbox then runs as Berth's own user). */
  uid: number | null;
  scratchDir: string;
  runDir: string;
  runnerPath: string;
  /** The runner compiled for this host's /usr/bin/python3 (./runner-bytecode), run instead of the source if given. */
  runnerBytecode?: string | null;
  /** Generated files bound read-only over the host's (/etc/hosts with the cluster peers, /etc/passwd with `work`). */
  etcFiles: { hostPath: string; sandboxPath: string }[];
  /** cgroup.procs files the launcher writes its pid into before exec. */
  cgroupProcs: string[];
}

/** The host's own PATH layout, seen through the sandbox. */
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

export function sandboxArgv(kernel: SandboxedKernel, host: SandboxHost): { file: string; args: string[] } {
  const cmd = { ...host, ...kernel };
  const env = kernelEnviron(SANDBOX_PATH, cmd.environ);
  const namespaces =
    cmd.uid === null
      ? ['--unshare-all', '--share-net']
      : ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try'];
  const dropPrivileges =
    cmd.uid === null
      ? []
      : ['/usr/bin/setpriv', `--reuid=${cmd.uid}`, `--regid=${cmd.uid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all'];
  const bwrap = [
    'bwrap',
    ...namespaces,
    '--new-session',
    '--ro-bind', '/usr', '/usr',
    '--symlink', 'usr/bin', '/bin',
    '--symlink', 'usr/sbin', '/sbin',
    '--symlink', 'usr/lib', '/lib',
    '--symlink', 'usr/lib64', '/lib64',
    '--ro-bind', '/etc', '/etc',
    ...cmd.etcFiles.flatMap((f) => ['--ro-bind', f.hostPath, f.sandboxPath]),
    '--tmpfs', '/tmp',
    '--proc', '/proc',
    '--dev', '/dev',
    '--perms', '0755', '--dir', '/home',
    '--perms', '0755', '--dir', '/run',
    '--perms', '0755', '--dir', '/opt',
    '--perms', '0755', '--dir', '/opt/berth',
    '--bind', cmd.scratchDir, '/home/work',
    '--bind', cmd.runDir, RUN_DIR_IN_SANDBOX,
    '--ro-bind', cmd.runnerPath, RUNNER_IN_SANDBOX,
    ...(cmd.runnerBytecode ? ['--ro-bind', cmd.runnerBytecode, RUNNER_BYTECODE_IN_SANDBOX] : []),
    '--ro-bind', path.join(path.dirname(cmd.runnerPath), 'web_terminal.py'), WEB_TERMINAL_IN_SANDBOX,
    ...xtermBinds(),
    ...cmd.mounts.flatMap((m) => [m.readOnly ? '--ro-bind' : '--bind', m.hostPath, m.kernelPath]),
    '--hostname', cmd.hostname,
    '--chdir', '/home/work',
    '--clearenv',
    ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
    ...dropPrivileges,
    // -S: site-packages are loaded by the runner after it says ready, off every launch's critical path.
    SANDBOX_PYTHON, '-S', cmd.runnerBytecode ? RUNNER_BYTECODE_IN_SANDBOX : RUNNER_IN_SANDBOX, SOCKET_IN_SANDBOX, cmd.runtime,
  ];
  // $1 = how many cgroup.procs files follow; the launcher joins each, then becomes the sandbox.
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 97; shift; n=$((n-1)); done; exec "$@"';
  return { file: '/bin/sh', args: ['-c', script, 'berth-kernel', String(cmd.cgroupProcs.length), ...cmd.cgroupProcs, ...bwrap] };
}
