/**
 * The `sshd` intrinsic app (CONTRACT §11.4): OpenSSH's server, started on demand inside the sandbox as the
 * session's unprivileged user, listening on the app's host port. Its files are written into the scratch directory
 * at launch (KernelSpec.files): a host key of its own, a configuration, the authorized keys (the user's
 * /auth/ssh-keypair public key, when they have one, and a per-session key whose private half is
 * /home/work/id_container, fetched by clients with download_single). Password login is off; sftp and scp work;
 * port forwarding reaches only the session's own preopen ports (the local sandbox shares the host's network, so
 * "localhost:*" would reach other sessions' apps).
 */
import type { KernelFile } from '../agents/agent';
import type { Kernel, Session } from '../db/schema';
import { generateSshKeypair } from '../accounts/ssh-keypair';

export const SSHD_PORT = 2200;
export const SSH_USER = 'work';
export const SESSION_KEY_PATH = '/home/work/id_container';
const DIR = '.berth/sshd';
export const SSHD_CONFIG_IN_SANDBOX = `/home/work/${DIR}/sshd_config`;
export const HOST_PUBLIC_KEY_PATH = `/home/work/${DIR}/ssh_host_ed25519_key.pub`;

/** The app's command line ({host} and {port} are filled in by ./services when it starts). */
export const SSHD_ARGV = ['/usr/sbin/sshd', '-D', '-e', '-f', SSHD_CONFIG_IN_SANDBOX, '-o', 'ListenAddress={host}', '-p', '{port}'];

/** sshd_config for one session. `preopenPorts`: where `ssh -L` may lead (the session's own servers). */
export function sshdConfig(preopenPorts: number[]): string {
  const permitOpen = preopenPorts.length ? preopenPorts.flatMap((p) => [`localhost:${p}`, `127.0.0.1:${p}`]).join(' ') : 'none';
  return [
    '# Written by Berth at launch: the session\'s SSH server runs as the session user, inside its sandbox.',
    `HostKey /home/work/${DIR}/ssh_host_ed25519_key`,
    `AuthorizedKeysFile /home/work/${DIR}/authorized_keys`,
    'PidFile none',
    // An unprivileged sshd can neither use PAM nor check the modes of files the user owns anyway.
    'UsePAM no',
    'StrictModes no',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'HostbasedAuthentication no',
    'PermitRootLogin no',
    'PermitEmptyPasswords no',
    'PermitUserEnvironment no',
    // Local forwards only, and only to the session's own ports; nothing listens on the user's behalf.
    'AllowTcpForwarding local',
    `PermitOpen ${permitOpen}`,
    'PermitListen none',
    'GatewayPorts no',
    'AllowStreamLocalForwarding no',
    'AllowAgentForwarding no',
    'X11Forwarding no',
    'PermitTunnel no',
    'Subsystem sftp internal-sftp',
    'PrintMotd no',
    'PrintLastLog no',
    'MaxAuthTries 3',
    'LoginGraceTime 30',
    '',
  ].join('\n');
}

/** The files sshd needs, written into the kernel's scratch directory at launch (all private to the session user). */
export function sshdFiles(session: Pick<Session, 'name'>, kernel: Pick<Kernel, 'service_ports'>, userPublicKey: string | null): KernelFile[] {
  const host = generateSshKeypair(`berth-host-${session.name}`);
  const sessionKey = generateSshKeypair(`berth-session-${session.name}`);
  const authorized = [sessionKey.publicKey.trim(), ...(userPublicKey ? [userPublicKey.trim()] : [])].join('\n') + '\n';
  const preopen = (kernel.service_ports ?? []).filter((p) => p.protocol === 'preopen').flatMap((p) => p.ports);
  return [
    { path: `${DIR}/ssh_host_ed25519_key`, content: host.privateKey, mode: 0o600 },
    { path: `${DIR}/ssh_host_ed25519_key.pub`, content: host.publicKey, mode: 0o644 },
    { path: `${DIR}/authorized_keys`, content: authorized, mode: 0o600 },
    { path: `${DIR}/sshd_config`, content: sshdConfig(preopen), mode: 0o600 },
    { path: 'id_container', content: sessionKey.privateKey, mode: 0o600 },
    { path: 'id_container.pub', content: sessionKey.publicKey, mode: 0o644 },
  ];
}
