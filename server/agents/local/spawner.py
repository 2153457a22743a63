#!/usr/bin/env python3
"""Starts the local backend's sandboxes for the manager, and reports when they are ready and when they exit.

The manager is a large process: each fork it makes copies its page tables first, several milliseconds during which
its event loop stands still, on every session start. This process is small, so its forks are cheap.

Line-delimited JSON. In, one per sandbox: {"id", "argv", "log"} (argv run as is, never through a shell; stdout and
stderr appended to the log file; fd 3 a pipe for the sandbox's "ready"). Out: {"id", "pid"} or {"id", "error"},
then {"id", "ready"} when the sandbox writes to fd 3, then {"id", "exit", "code", "signal"}. A sandbox is its own
session (setsid), so it outlives this process and the manager, which adopts it again when it starts. Ends when its
stdin closes.
"""
import json
import os
import selectors
import signal
import sys

selector = selectors.DefaultSelector()
children = {}  # pid -> id
out = sys.stdout


def send(message):
    out.write(json.dumps(message) + '\n')
    out.flush()


def start(request):
    kernel_id, argv, log = request['id'], request['argv'], request['log']
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        log_fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        os.close(read_end)
        os.close(write_end)
        send({'id': kernel_id, 'error': f'{log}: {exc.strerror}'})
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.dup2(write_end, 3)  # dup2 clears close-on-exec on the copy
            os.closerange(4, os.sysconf('SC_OPEN_MAX'))
            # A sandbox starts as the manager's own children did: every signal at its default (Python ignores
            # SIGPIPE and SIGXFSZ, and ignored signals stay ignored across exec), none blocked.
            for number in signal.valid_signals():
                if number not in (signal.SIGKILL, signal.SIGSTOP):
                    try:
                        signal.signal(number, signal.SIG_DFL)
                    except (OSError, ValueError):
                        pass
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    os.close(write_end)
    os.close(log_fd)
    children[pid] = kernel_id
    selector.register(read_end, selectors.EVENT_READ, ('ready', kernel_id))
    send({'id': kernel_id, 'pid': pid})


def on_ready(fd, kernel_id):
    data = os.read(fd, 64)
    if b'ready' in data:
        send({'id': kernel_id, 'ready': True})
    if not data or b'ready' in data:
        selector.unregister(fd)
        os.close(fd)


def reap():
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        kernel_id = children.pop(pid, None)
        if kernel_id is not None:
            code = os.waitstatus_to_exitcode(status)
            send({'id': kernel_id, 'exit': True, 'code': code if code >= 0 else None, 'signal': -code if code < 0 else None})


def main():
    # SIGCHLD wakes the loop through a pipe (the handler itself does nothing).
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector.register(wake_read, selectors.EVENT_READ, ('wake', None))
    stdin = sys.stdin.buffer
    os.set_blocking(stdin.fileno(), True)
    selector.register(stdin.fileno(), selectors.EVENT_READ, ('request', None))
    pending = b''
    while True:
        for key, _ in selector.select():
            kind, kernel_id = key.data
            if kind == 'wake':
                os.read(wake_read, 512)
                reap()
            elif kind == 'ready':
                on_ready(key.fd, kernel_id)
            else:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    return
                pending += chunk
                *lines, pending = pending.split(b'\n')
                for line in lines:
                    if line.strip():
                        start(json.loads(line))
        reap()


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        pass
