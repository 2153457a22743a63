#!/usr/bin/env python3
"""Berth's `ttyd` app (CONTRACT §11.4): a web terminal every session offers, speaking ttyd's WebSocket protocol.

Started on demand by the kernel runner as `web_terminal.py <port> <base_url>`; it listens on $BERTH_APP_HOST (127.0.0.1, or the node's address on a cluster) and the
app proxy serves it under <base_url>. `GET <base>` is the terminal page, `GET <base>token` answers
{"token": ""} and `<base>ws` is the WebSocket (subprotocol `tty`): the client's first text frame is
{"AuthToken", "columns", "rows"}; then client messages start with '0' (input) or '1' (resize, JSON
{"columns", "rows"}), and server messages with '0' (output), '1' (window title) or '2' (preferences). Each
WebSocket gets its own login shell in /home/work. Standard library only.
"""
import base64
import fcntl
import hashlib
import json
import os
import pty
import select
import signal
import socket
import struct
import sys
import termios
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, BASE = int(sys.argv[1]), sys.argv[2]
WORKDIR = os.environ.get('HOME', '/home/work')
WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
# xterm.js from the manager's own install, bound read-only into the sandbox: the page loads nothing from elsewhere.
XTERM_DIR = '/opt/berth/xterm'
XTERM_FILES = {'xterm.js': 'text/javascript; charset=utf-8', 'xterm.css': 'text/css; charset=utf-8'}

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Terminal</title>
<link rel="stylesheet" href="xterm.css">
<script src="xterm.js"></script>
<style>html,body{margin:0;height:100%;background:#111;color:#ddd}#t{height:100%}
pre{margin:0;padding:8px;white-space:pre-wrap;font:14px monospace}input{width:100%;font:14px monospace}</style>
</head><body><div id="t"></div><script>
const enc = new TextEncoder(), dec = new TextDecoder();
const ws = new WebSocket(location.href.split(/[?#]/)[0].replace(/^http/, 'ws').replace(/[^/]*$/, '') + 'ws', ['tty']);
ws.binaryType = 'arraybuffer';
let write;
const send = (kind, text) => ws.readyState === 1 && ws.send(enc.encode(kind + text));
let size = { columns: Math.max(20, Math.floor(innerWidth / 9)), rows: Math.max(5, Math.floor(innerHeight / 17)) };
if (window.Terminal) {
  const term = new Terminal({ cols: size.columns, rows: size.rows });
  term.open(document.getElementById('t'));
  term.onData((s) => send('0', s));
  term.onResize(({ cols, rows }) => send('1', JSON.stringify({ columns: cols, rows })));
  write = (bytes) => term.write(bytes);
} else {
  // Without xterm.js (offline): plain output and a line of input.
  const out = document.createElement('pre'), line = document.createElement('input');
  document.body.append(out, line);
  line.onkeydown = (e) => { if (e.key === 'Enter') { send('0', line.value + '\\r'); line.value = ''; } };
  write = (bytes) => { out.textContent += dec.decode(bytes).replace(/\\x1b\\[[0-9;?]*[A-Za-z]|\\x1b\\][^\\x07]*\\x07|\\r/g, ''); scrollTo(0, document.body.scrollHeight); };
}
ws.onopen = () => ws.send(JSON.stringify({ AuthToken: '', ...size }));
ws.onmessage = (e) => {
  const data = new Uint8Array(e.data);
  if (data[0] === 48) write(data.slice(1));
  else if (data[0] === 49) document.title = dec.decode(data.slice(1));
};
ws.onclose = () => write(enc.encode('\\r\\n[the terminal closed]\\r\\n'));
</script></body></html>
""".encode('utf-8')


class WebSocket:
    """Server side of RFC 6455 over a raw socket: whole messages in, unmasked frames out."""

    def __init__(self, sock):
        self.sock = sock
        self.lock = threading.Lock()

    def _read(self, n):
        data = b''
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def receive(self):
        """The next data message (bytes), or None once the peer closes."""
        message = b''
        while True:
            try:
                head = self._read(2)
                opcode, length = head[0] & 0x0F, head[1] & 0x7F
                if length == 126:
                    length = struct.unpack('>H', self._read(2))[0]
                elif length == 127:
                    length = struct.unpack('>Q', self._read(8))[0]
                mask = self._read(4) if head[1] & 0x80 else None
                payload = bytearray(self._read(length))
            except (EOFError, OSError):
                return None
            if mask:
                for i in range(len(payload)):
                    payload[i] ^= mask[i & 3]
            if opcode == 0x8:
                self.send(bytes(payload[:2]), 0x8)
                return None
            if opcode == 0x9:
                self.send(bytes(payload), 0xA)
                continue
            if opcode == 0xA:
                continue
            message += bytes(payload)
            if head[0] & 0x80:
                return message

    def send(self, data, opcode=0x2):
        length = len(data)
        if length < 126:
            head = struct.pack('>BB', 0x80 | opcode, length)
        elif length < 65536:
            head = struct.pack('>BBH', 0x80 | opcode, 126, length)
        else:
            head = struct.pack('>BBQ', 0x80 | opcode, 127, length)
        with self.lock:
            try:
                self.sock.sendall(head + data)
            except OSError:
                pass


def resize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', max(1, int(rows)), max(1, int(cols)), 0, 0))


def serve_terminal(ws):
    first = ws.receive()
    if first is None:
        return
    try:
        hello = json.loads(first.decode('utf-8'))
    except ValueError:
        hello = {}
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(WORKDIR)
        os.execve('/bin/bash', ['bash', '-l'], dict(os.environ, TERM='xterm-256color'))
    resize(fd, hello.get('rows') or 24, hello.get('columns') or 80)
    ws.send(b'1' + f'work@{socket.gethostname()}'.encode('utf-8'))
    ws.send(b'2{}')

    def pump():
        while True:
            try:
                ready, _, _ = select.select([fd], [], [], 1.0)
                if not ready:
                    continue
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            ws.send(b'0' + data)
        ws.send(b'', 0x8)
        try:
            ws.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    threading.Thread(target=pump, daemon=True).start()
    while True:
        message = ws.receive()
        if message is None:
            break
        kind, body = message[:1], message[1:]
        try:
            if kind == b'0':
                os.write(fd, body)
            elif kind == b'1':
                size = json.loads(body.decode('utf-8'))
                resize(fd, size.get('rows') or 24, size.get('columns') or 80)
        except (OSError, ValueError):
            pass
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(fd)


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'ttyd'

    def log_message(self, *_args):
        pass

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split('?', 1)[0]
        relative = path[len(BASE):] if path.startswith(BASE) else (None if path != BASE.rstrip('/') else '')
        if relative in ('', 'index.html'):
            return self.answer(200, PAGE, 'text/html; charset=utf-8')
        if relative == 'token':
            return self.answer(200, b'{"token": ""}', 'application/json')
        if relative in XTERM_FILES:
            try:
                with open(os.path.join(XTERM_DIR, relative), 'rb') as f:
                    return self.answer(200, f.read(), XTERM_FILES[relative])
            except OSError:  # not installed: the page falls back to plain text
                return self.answer(404, b'not found\n', 'text/plain')
        if relative == 'ws' and self.headers.get('Upgrade', '').lower() == 'websocket':
            key = self.headers.get('Sec-WebSocket-Key', '')
            accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode('ascii')).digest()).decode('ascii')
            self.send_response(101)
            self.send_header('Upgrade', 'websocket')
            self.send_header('Connection', 'Upgrade')
            self.send_header('Sec-WebSocket-Accept', accept)
            if 'tty' in [p.strip() for p in self.headers.get('Sec-WebSocket-Protocol', '').split(',')]:
                self.send_header('Sec-WebSocket-Protocol', 'tty')
            self.end_headers()
            self.wfile.flush()
            serve_terminal(WebSocket(self.connection))
            self.close_connection = True
            return
        self.answer(404, b'not found\n', 'text/plain')


if __name__ == '__main__':
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer((os.environ.get('BERTH_APP_HOST', '127.0.0.1'), PORT), Handler).serve_forever()
