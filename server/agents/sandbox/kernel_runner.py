#!/usr/bin/env python3
"""Berth kernel runner: the one process a session's sandbox starts.

It keeps a persistent Python interpreter (query mode), runs batch commands, serves terminals and starts in-session
apps, and speaks line-delimited JSON over a Unix socket, so the manager can reconnect after it restarts. Standard
library only: it runs on the host's /usr/bin/python3 inside the sandbox.

Protocol: a client connects and sends one request line {"op": ...}; the runner answers with event lines
{"t": ...}. Long operations (exec, pty) keep the connection for their whole life.
"""
import os
import sys
import _signal
import _socket

SOCKET_PATH, RUNTIME = sys.argv[1], sys.argv[2]
WORKDIR = os.environ.get('HOME', '/home/work')
STATE_DIR = os.path.join(WORKDIR, '.berth')
# The exit code of the session's batch command, kept for a manager that restarted while it ran.
BATCH_RESULT = os.path.join(STATE_DIR, 'batch-result.json')


def run_bootstrap():
    script = os.path.join(STATE_DIR, 'bootstrap.sh')
    if os.path.exists(script):
        import subprocess
        sys.__stderr__.write('[runner] running the bootstrap script\n')
        code = subprocess.call(['/bin/bash', script], cwd=WORKDIR, stdin=subprocess.DEVNULL)
        sys.__stderr__.write(f'[runner] bootstrap script exited with {code}\n')


def signal_ready():
    """Tells the launcher we listen, through the pipe it passed as fd 3 (then closes it for good)."""
    try:
        os.write(3, b'ready\n')
        os.close(3)
    except OSError:
        pass


def listen():
    """
    Runs the bootstrap script, listens on the runner's socket and says ready, before the rest of the runner is
    imported (json, subprocess, threading, pty: most of an interpreter's start). The session is RUNNING once its
    socket takes connections; a first request waits in the backlog for the few milliseconds the imports take.
    Only C modules are used until then (_socket, _signal), which cost nothing to import.
    """
    os.makedirs(STATE_DIR, exist_ok=True)
    run_bootstrap()
    if os.path.exists(SOCKET_PATH):
        os.unlink(SOCKET_PATH)
    server = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    server.bind(SOCKET_PATH)
    server.listen(64)
    _signal.signal(_signal.SIGTERM, lambda *_: os._exit(0))
    signal_ready()
    return server


if __name__ == '__main__':
    LISTENER = listen()

# The rest of the runner, imported after it said ready (see listen).
import binascii
import builtins
import fcntl
import json
import pty
import queue
import select
import signal
import socket
import struct
import subprocess
import termios
import threading
import time

main_jobs = queue.Queue()
namespace = {'__name__': '__main__', '__builtins__': builtins}
apps = {}
apps_lock = threading.Lock()


def log(message):
    sys.__stderr__.write(f'[runner] {message}\n')
    sys.__stderr__.flush()


class Channel:
    """One client connection: JSON lines in, JSON lines out (thread-safe)."""

    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile('r', encoding='utf-8', newline='\n')
        self.lock = threading.Lock()
        self.closed = False

    def send(self, obj):
        data = (json.dumps(obj) + '\n').encode('utf-8')
        with self.lock:
            if self.closed:
                return
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def recv(self):
        try:
            line = self.reader.readline()
        except (OSError, ValueError):
            return None
        if not line:
            return None
        try:
            return json.loads(line)
        except ValueError:
            return {'op': 'invalid'}

    def close(self):
        with self.lock:
            self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class StreamWriter:
    """sys.stdout/sys.stderr while a query runs: every write becomes an event of the current run."""

    def __init__(self, run, kind):
        self.run, self.kind = run, kind

    def write(self, text):
        if text:
            self.run.emit(self.kind, text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def encoding(self):
        return 'utf-8'


class Run:
    def __init__(self, channel, request):
        self.channel = channel
        self.mode = request.get('mode', 'query')
        self.code = request.get('code') or ''
        self.options = request.get('options') or {}
        self.inputs = queue.Queue()
        self.process = None
        self.running = True
        self.interrupted = False
        self.started = False  # a query has the interpreter (until then, an interrupt only cancels it)
        self.done = threading.Event()

    def emit(self, kind, text):
        self.channel.send({'t': kind, 'd': text})

    def status(self, status, exit_code):
        self.channel.send({'t': 'status', 'status': status, 'exitCode': exit_code})

    def finish(self, exit_code):
        self.running = False
        if self is detached_batch.run:
            record_batch_result(exit_code)
        self.channel.send({'t': 'finished', 'exitCode': exit_code})
        self.done.set()

    def interrupt(self):
        # Once per run: a second SIGINT could land in the next run's code.
        if not self.running or self.interrupted:
            return
        self.interrupted = True
        if self.mode != 'query' or RUNTIME != 'python':
            # A command run: interrupt its step; with none running, the next step does not start. Never signal
            # the runner itself here: its main thread may be idle or busy with another run.
            if self.process is not None:
                try:
                    os.killpg(self.process.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
        elif self.started:
            # A real SIGINT (not interrupt_main) also wakes the main thread from sleep() and blocking reads, but only
            # when that thread receives it: sent to the process, the kernel may hand it to another thread, and the
            # main thread would sleep on. So it goes to the main thread itself.
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    # -- python query mode: runs on the main thread so KeyboardInterrupt can reach it --
    def execute_python(self):
        def read_input(prompt='', password=False):
            if prompt:
                self.emit('stdout', str(prompt))
            self.channel.send({'t': 'waiting-input', 'password': password})
            text = self.inputs.get()
            if text is None:
                raise EOFError('input cancelled')
            return text

        import getpass  # imported on first use: the runner's start is on every session's launch path
        saved = sys.stdout, sys.stderr, builtins.input, getpass.getpass
        try:
            sys.stdout, sys.stderr = StreamWriter(self, 'stdout'), StreamWriter(self, 'stderr')
            builtins.input = lambda prompt='': read_input(prompt)
            getpass.getpass = lambda prompt='Password: ', stream=None: read_input(prompt, True)
            self.started = True
            if self.interrupted:  # interrupted while it waited for the interpreter
                raise KeyboardInterrupt
            compiled = compile(self.code, '<input>', 'exec')
            exec(compiled, namespace)
        except SystemExit:
            pass
        except BaseException:  # user errors, KeyboardInterrupt included, are output, not failures
            import traceback
            etype, value, tb = sys.exc_info()
            frames = traceback.extract_tb(tb)[1:]  # drop this function's frame
            text = ''.join(traceback.format_list(frames)) + ''.join(traceback.format_exception_only(etype, value))
            self.emit('stderr', 'Traceback (most recent call last):\n' + text if frames else text)
        finally:
            sys.stdout, sys.stderr, builtins.input, getpass.getpass = saved
            self.finish(0)

    # -- commands (batch mode, shell runtime): a bash process group per step --
    def run_command(self, command):
        if self.interrupted:
            return 130
        self.process = subprocess.Popen(
            ['/bin/bash', '-c', command], cwd=WORKDIR, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )

        def pump(stream, kind):
            for chunk in iter(lambda: stream.read1(65536), b''):
                text = chunk.decode('utf-8', 'replace')
                self.emit(kind, text)
                sys.__stdout__.write(text)  # batch output also goes to the kernel log
                sys.__stdout__.flush()

        threads = [threading.Thread(target=pump, args=(self.process.stdout, 'stdout'), daemon=True),
                   threading.Thread(target=pump, args=(self.process.stderr, 'stderr'), daemon=True)]
        for t in threads:
            t.start()
        code = self.process.wait()
        for t in threads:
            t.join()
        self.process = None
        return code if code >= 0 else 128 - code

    def execute_commands(self):
        try:
            if self.mode == 'query':  # shell runtime: the code is a bash script
                self.finish(self.run_command(self.code))
                return
            clean, build, run = (self.options.get(k) for k in ('clean', 'build', 'exec'))
            if clean and clean != '*':
                self.status('clean-finished', self.run_command(clean))
            build_code = 0
            if build and build != '*':
                build_code = self.run_command(build)
                self.status('build-finished', build_code)
            if not run:
                self.finish(build_code)
            elif build_code != 0:
                self.finish(127)
            else:
                self.finish(self.run_command(run))
        except Exception as exc:  # a Berth-side failure, not the user's
            self.emit('stderr', f'berth runner: {exc}\n')
            self.finish(-1)


class DetachedBatch:
    """The session's batch command: it outlives its client, so a manager restart does not end it."""
    run = None


detached_batch = DetachedBatch()


def record_batch_result(exit_code):
    temporary = BATCH_RESULT + '.tmp'
    with open(temporary, 'w') as f:
        json.dump({'exitCode': exit_code}, f)
    os.replace(temporary, BATCH_RESULT)


def forward_interrupts(channel, run):
    """Reads the client's messages during a run; False when the client went away."""
    while not run.done.is_set():
        message = channel.recv()
        if message is None:
            return False
        if message.get('op') == 'input':
            run.inputs.put(str(message.get('text', '')))
        elif message.get('op') == 'interrupt':
            run.interrupt()
            run.inputs.put(None)
    return True


def serve_exec(channel, request):
    run = Run(channel, request)
    detached = bool(run.options.get('detach'))
    if detached:
        detached_batch.run = run
    if RUNTIME == 'python' and run.mode == 'query':
        main_jobs.put(run.execute_python)
    else:
        threading.Thread(target=run.execute_commands, daemon=True).start()
    if not forward_interrupts(channel, run):
        if detached:
            return  # the batch goes on; batch-wait reports how it ended
        run.interrupt()  # the client went away: the run is interrupted (CONTRACT §8.3)
        run.inputs.put(None)
    run.done.wait()


def serve_batch_wait(channel, _request):
    """A manager back from a restart follows the batch command it started before, or learns how it ended."""
    run = detached_batch.run
    if run is None and not os.path.exists(BATCH_RESULT):
        channel.send({'t': 'error', 'msg': 'no batch command was started'})
        return
    if run is not None:
        threading.Thread(target=forward_interrupts, args=(channel, run), daemon=True).start()
        run.done.wait()
    with open(BATCH_RESULT) as f:
        channel.send({'t': 'finished', 'exitCode': json.load(f)['exitCode']})


def serve_pty(channel, request):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(WORKDIR)
        env = dict(os.environ, TERM='xterm-256color')
        os.execve('/bin/bash', ['bash', '-l'], env)
    resize(fd, request.get('rows', 25), request.get('cols', 80))
    channel.send({'t': 'ready'})

    def from_client():
        while True:
            message = channel.recv()
            if message is None:
                break
            op = message.get('op')
            try:
                if op == 'stdin':
                    os.write(fd, binascii.a2b_base64(message.get('b64', '')))
                elif op == 'resize':
                    resize(fd, message.get('rows', 25), message.get('cols', 80))
            except (OSError, ValueError):
                pass
        try:
            os.kill(pid, signal.SIGHUP)
        except ProcessLookupError:
            pass

    threading.Thread(target=from_client, daemon=True).start()
    # poll, not select: select() fails for descriptors past 1024, which a long-lived session reaches.
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while True:
        try:
            ready = poller.poll(1000)
            if not ready:
                if channel.closed:
                    break
                continue
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        channel.send({'t': 'out', 'b64': binascii.b2a_base64(data, newline=False).decode('ascii')})
    # Closing the pty hangs up a shell that missed SIGHUP; a shell that outlives both is killed.
    os.close(fd)
    for _ in range(20):
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            break
        time.sleep(0.05)
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    channel.send({'t': 'exit', 'code': os.waitstatus_to_exitcode(status)})


def resize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', int(rows), int(cols), 0, 0))


def serve_complete(channel, request):
    text = (request.get('code') or '').split()[-1] if (request.get('code') or '').split() else ''
    completions = []
    if RUNTIME == 'python' and text:
        import rlcompleter
        completer = rlcompleter.Completer(namespace)
        for state in range(200):
            item = completer.complete(text, state)
            if item is None:
                break
            completions.append(item)
    channel.send({'t': 'completions', 'completions': completions})


def serve_app_start(channel, request):
    name = request['name']
    with apps_lock:
        current = apps.get(name)
        if current is not None and current.poll() is None:
            channel.send({'t': 'app', 'name': name, 'pid': current.pid, 'reused': True})
            return
        os.makedirs(os.path.join(STATE_DIR, 'apps'), exist_ok=True)
        logfile = open(os.path.join(STATE_DIR, 'apps', f'{name}.log'), 'ab')
        env = dict(os.environ, **{str(k): str(v) for k, v in (request.get('env') or {}).items()})
        process = subprocess.Popen(request['argv'], cwd=WORKDIR, env=env, stdin=subprocess.DEVNULL,
                                   stdout=logfile, stderr=subprocess.STDOUT, start_new_session=True)
        apps[name] = process
    channel.send({'t': 'app', 'name': name, 'pid': process.pid, 'reused': False})


def serve_app_stop(channel, request):
    with apps_lock:
        process = apps.pop(request.get('name'), None)
    if process is not None and process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
    channel.send({'t': 'app-stopped', 'stopped': process is not None})


def app_output(name, limit):
    # Read inside the sandbox, as the kernel's user: whatever the log path points to, nothing outside is readable.
    try:
        with open(os.path.join(STATE_DIR, 'apps', f'{name}.log'), 'rb') as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read().decode('utf-8', 'replace')
    except OSError:
        return ''


def serve_apps(channel, request):
    tail = int(request.get('tail') or 0)
    with apps_lock:
        listing = {name: {'pid': p.pid, 'alive': p.poll() is None, 'exitCode': p.returncode} for name, p in apps.items()}
    if tail > 0:
        for name, entry in listing.items():
            entry['output'] = app_output(name, min(tail, 65536))
    channel.send({'t': 'apps', 'apps': listing})


HANDLERS = {
    'ping': lambda channel, _r: channel.send({'t': 'pong', 'pid': os.getpid(), 'runtime': RUNTIME}),
    'exec': serve_exec,
    'batch-wait': serve_batch_wait,
    'pty': serve_pty,
    'complete': serve_complete,
    'app-start': serve_app_start,
    'app-stop': serve_app_stop,
    'apps': serve_apps,
}


def handle(sock):
    channel = Channel(sock)
    try:
        request = channel.recv()
        handler = HANDLERS.get((request or {}).get('op'))
        if handler is None:
            channel.send({'t': 'error', 'msg': 'unknown request'})
        else:
            handler(channel, request)
    except Exception as exc:
        log(f'connection failed: {exc!r}')
        channel.send({'t': 'error', 'msg': str(exc)})
    finally:
        channel.close()


def serve(server):
    while True:
        sock, _ = server.accept()
        threading.Thread(target=handle, args=(sock,), daemon=True).start()


def main():
    server = socket.socket(fileno=LISTENER.detach())
    threading.Thread(target=serve, args=(server,), daemon=True).start()
    log(f'ready ({RUNTIME})')
    # Started with -S, so a launch does not wait for site-packages' .pth files: load them now, before the first
    # job (user code sees the usual sys.path, user site included; apps and commands start their own interpreters).
    if sys.flags.no_site:
        import site
        site.main()
    while True:
        try:
            job = main_jobs.get()
            job()
        except KeyboardInterrupt:  # an interrupt that arrived between jobs
            pass


if __name__ == '__main__':
    main()
