/** The sshd app's configuration and the CLI's --bind parsing (the integration tests run them for real). */
import { describe, expect, it } from 'vitest';
import { sshdConfig, SSHD_ARGV } from '../../server/apps/sshd';
import { parseBind } from '../../server/client/cli/apps';
import { UsageError } from '../../server/client/cli/credentials';

describe('sshd_config', () => {
  it('turns passwords, remote forwards and tunnels off and permits no forward without preopen ports', () => {
    const lines = sshdConfig([]).split('\n');
    for (const line of ['PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin no', 'AllowTcpForwarding local', 'PermitOpen none', 'PermitListen none', 'PermitTunnel no', 'X11Forwarding no', 'AllowAgentForwarding no', 'Subsystem sftp internal-sftp']) {
      expect(lines).toContain(line);
    }
  });

  it('permits local forwards to the session\'s preopen ports only', () => {
    expect(sshdConfig([8000, 9000]).split('\n')).toContain('PermitOpen localhost:8000 127.0.0.1:8000 localhost:9000 127.0.0.1:9000');
  });

  it('listens where the app is told to ({host}, {port})', () => {
    expect(SSHD_ARGV).toEqual(expect.arrayContaining(['-D', '-e', 'ListenAddress={host}', '{port}']));
  });
});

describe('berth app --bind', () => {
  it('reads HOST:PORT, [v6]:PORT and a bare port; defaults to loopback and a free port', () => {
    expect(parseBind(undefined)).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBind('127.0.0.1:2222')).toEqual({ host: '127.0.0.1', port: 2222 });
    expect(parseBind('[::1]:2222')).toEqual({ host: '::1', port: 2222 });
    expect(parseBind('8888')).toEqual({ host: '127.0.0.1', port: 8888 });
  });

  it('refuses what is not an address', () => {
    for (const bad of ['localhost', 'host:', ':22', 'a:99999', '1.2.3.4:22:33', 'a b:22']) {
      expect(() => parseBind(bad)).toThrow(UsageError);
    }
  });
});
