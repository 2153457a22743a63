// The baseline: a bare node:http server answering a fixed JSON body with keep-alive.
import http from 'node:http';

const body = JSON.stringify({ version: 'v8.20240915', manager: '0.1.0' });
const server = http.createServer({ keepAlive: true }, (req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
