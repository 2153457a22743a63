#!/usr/bin/python3
"""Berth's Slurm job: starts a session's kernels on the nodes Slurm gave the job.

    job_launcher.py SPEC          the batch script (sbatch): one kernel runs here; several run as srun tasks
    job_launcher.py --task SPEC   one task (srun): the kernel of index $SLURM_PROCID

SPEC is a root-only JSON file the manager wrote on the shared file system: each kernel's sandbox command line,
its channel credentials (a TLS certificate and key, a secret) and where to report readiness. Per kernel this
process (root, outside the sandbox) writes the kernel's /etc/hosts from the job's nodes, starts the same bubblewrap
sandbox as Berth's local backend, waits until the kernel runner listens on its Unix socket, and then serves the
kernel channel: TLS on an ephemeral port of the node, where a connection is let through to the runner only after it
sent the kernel's secret. The secret and the key never enter the sandbox. It exits with the sandbox's exit code,
so the job's state and exit code are the kernel's. Standard library only: nodes need python3 and bubblewrap.
"""
import hmac
import json
import os
import select
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

BUFFER_LIMIT = 1 << 20
AUTH_LINE_LIMIT = 4096
READY_TIMEOUT_S = 120


def log(message):
    sys.stderr.write(f'[berth-launcher] {message}\n')
    sys.stderr.flush()


def read_spec(path):
    with open(path) as f:
        return json.load(f)


def job_nodes():
    nodelist = os.environ.get('SLURM_JOB_NODELIST') or os.environ.get('SLURM_NODELIST') or ''
    if not nodelist:
        return [os.environ.get('SLURMD_NODENAME', '')]
    out = subprocess.run(['scontrol', 'show', 'hostnames', nodelist], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def node_of(index, nodes, single_node):
    if single_node or not nodes:
        return nodes[0] if nodes else ''
    return nodes[min(index, len(nodes) - 1)]


def write_hosts(kernel, spec, nodes):
    """The kernel's /etc/hosts: its cluster peers at the addresses of the nodes they run on."""
    lines = ['127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', f"127.0.1.1\t{kernel['hostname']}"]
    for index, peer in enumerate(spec['kernels']):
        if peer['hostname'] == kernel['hostname']:
            continue
        address = spec['nodeAddrs'].get(node_of(index, nodes, spec['singleNode']))
        if address:
            lines.append(f"{address}\t{peer['hostname']}")
    write_atomically(kernel['hostsFile'], '\n'.join(lines) + '\n', 0o644)


def write_atomically(path, text, mode):
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.tmp-')
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def descendants(root):
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(')') + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def kill_tree(pid):
    for p in reversed(descendants(pid)):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_sandbox(kernel):
    """The sandbox, with fd 3 a pipe the runner writes "ready" to once it listens."""
    os.makedirs(kernel['runDir'], exist_ok=True)
    if kernel.get('uid') is not None:
        os.chown(kernel['runDir'], kernel['uid'], kernel['uid'])
    read_end, write_end = os.pipe()
    if read_end == 3:  # fd 3 must become the write end: keep the read end elsewhere
        moved = os.dup(read_end)
        os.close(read_end)
        read_end = moved
    if write_end != 3:
        os.dup2(write_end, 3)
        os.close(write_end)
    os.set_inheritable(3, True)
    log_file = open(kernel['logFile'], 'ab')
    child = subprocess.Popen(kernel['argv'], stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, pass_fds=(3,),
                             start_new_session=True)
    os.close(3)
    log_file.close()
    deadline = time.monotonic() + READY_TIMEOUT_S
    buffer = b''
    while b'ready' not in buffer:
        if time.monotonic() > deadline or child.poll() is not None:
            os.close(read_end)
            raise RuntimeError('the kernel runner did not become ready')
        readable, _, _ = select.select([read_end], [], [], 0.5)
        if readable:
            chunk = os.read(read_end, 64)
            if not chunk:
                break
            buffer += chunk
    os.close(read_end)
    if b'ready' not in buffer:
        raise RuntimeError('the kernel runner exited while starting')
    return child


def tls_context(kernel):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    # load_cert_chain reads files: a root-only temporary file, removed at once.
    fd, path = tempfile.mkstemp(prefix='berth-channel-')
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(kernel['cert'].strip() + '\n' + kernel['key'].strip() + '\n')
        context.load_cert_chain(path)
    finally:
        os.unlink(path)
    return context


def read_auth_line(tls):
    data = b''
    while b'\n' not in data:
        if len(data) > AUTH_LINE_LIMIT:
            return None, b''
        chunk = tls.recv(1024)
        if not chunk:
            return None, b''
        data += chunk
    line, rest = data.split(b'\n', 1)
    try:
        return json.loads(line).get('auth'), rest
    except (ValueError, AttributeError):
        return None, b''


def fill(sock, buffer, would_block):
    """Reads what a non-blocking socket has into buffer, up to BUFFER_LIMIT; True at the end of its stream (or when
    it broke: ssl.SSLError is an OSError)."""
    try:
        while len(buffer) < BUFFER_LIMIT:
            data = sock.recv(65536)
            if not data:
                return True
            buffer += data
    except would_block:
        pass
    except OSError:
        return True
    return False


def pump(tls, plain, pending):
    """Bytes both ways between the TLS connection and the runner's socket, in one thread (an SSL object must not
    be read and written from two threads at once)."""
    tls.setblocking(False)
    plain.setblocking(False)
    to_plain, to_tls = bytearray(pending), bytearray()
    tls_eof = plain_eof = plain_shut = False
    poller = select.poll()
    while True:
        if not tls_eof and len(to_plain) < BUFFER_LIMIT:
            tls_eof = fill(tls, to_plain, (ssl.SSLWantReadError, ssl.SSLWantWriteError))
        if not plain_eof and len(to_tls) < BUFFER_LIMIT:
            plain_eof = fill(plain, to_tls, BlockingIOError)
        try:
            if to_plain:
                del to_plain[:plain.send(to_plain)]
        except BlockingIOError:
            pass
        except OSError:
            return
        try:
            if to_tls:
                del to_tls[:tls.send(to_tls)]
        except (ssl.SSLWantWriteError, ssl.SSLWantReadError):
            pass
        except (ssl.SSLError, OSError):
            return
        if tls_eof and not to_plain and not plain_shut:
            plain_shut = True
            try:
                plain.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        if plain_eof and not to_tls:
            return
        tls_events = (select.POLLIN if not tls_eof and len(to_plain) < BUFFER_LIMIT else 0) | (select.POLLOUT if to_tls else 0)
        plain_events = (select.POLLIN if not plain_eof and len(to_tls) < BUFFER_LIMIT else 0) | (select.POLLOUT if to_plain else 0)
        for sock, events in ((tls, tls_events), (plain, plain_events)):
            try:
                poller.modify(sock, events)
            except (FileNotFoundError, KeyError):
                poller.register(sock, events)
        poller.poll(1000)


def serve_connection(context, conn, kernel):
    tls = plain = None
    try:
        conn.settimeout(10)
        tls = context.wrap_socket(conn, server_side=True)
        secret, rest = read_auth_line(tls)
        if not isinstance(secret, str) or not hmac.compare_digest(secret.encode(), kernel['secret'].encode()):
            return
        tls.settimeout(None)
        plain = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        plain.connect(os.path.join(kernel['runDir'], 'kernel.sock'))
        pump(tls, plain, rest)
    except (OSError, ssl.SSLError, ValueError):
        pass
    finally:
        for sock in (plain, tls or conn):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass


def serve_channel(context, server, kernel):
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve_connection, args=(context, conn, kernel), daemon=True).start()


def run_task(spec_path, index):
    spec = read_spec(spec_path)
    kernel = spec['kernels'][index]
    nodes = job_nodes()
    write_hosts(kernel, spec, nodes)
    context = tls_context(kernel)
    child = start_sandbox(kernel)

    def stop(*_):
        kill_tree(child.pid)
        os._exit(143)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(('0.0.0.0', 0))
    server.listen(64)
    threading.Thread(target=serve_channel, args=(context, server, kernel), daemon=True).start()
    node = os.environ.get('SLURMD_NODENAME') or node_of(index, nodes, spec['singleNode'])
    write_atomically(kernel['readyFile'], json.dumps({'node': node, 'port': server.getsockname()[1], 'pid': child.pid}), 0o600)
    log(f"kernel {kernel['kernelId']} ready on {node}:{server.getsockname()[1]}")
    code = child.wait()
    kill_tree(child.pid)
    return code if code >= 0 else 128 - code


def main():
    args = sys.argv[1:]
    if args[:1] == ['--task']:
        sys.exit(run_task(args[1], int(os.environ.get('SLURM_PROCID', '0'))))
    spec_path = args[0]
    spec = read_spec(spec_path)
    count = len(spec['kernels'])
    if count == 1:
        sys.exit(run_task(spec_path, 0))
    command = ['srun', f'--ntasks={count}', '--kill-on-bad-exit=1', '--cpu-bind=none']
    if not spec['singleNode']:
        command.append('--ntasks-per-node=1')
    # sbatch runs a copy of this script from its spool: the tasks run the original, on the shared file system.
    os.execvp('srun', command + [sys.executable, spec['launcher'], '--task', spec_path])


if __name__ == '__main__':
    main()
