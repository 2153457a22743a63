// The baselines: a bare node:http server answering a fixed JSON body with keep-alive, and (BARE_SIGNED=1) the
// least any server of this API must add per request: one HMAC-SHA256 over the request's string to sign, compared
// in constant time, and the rate-limit and language headers every answer carries (CONTRACT §2.2, §4). It shows
// how much of the gap to the bare server is the protocol itself rather than Berth's code.
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

const body = JSON.stringify({ version: 'v8.20240915', manager: '0.1.0' });
const signingKey = createHmac('sha256', 'bare').update('key').digest();
const contractHeaders = {
  'Content-Language': 'en',
  'X-RateLimit-Limit': '2147483647',
  'X-RateLimit-Remaining': '2147483647',
  'X-RateLimit-Reset': '0',
  'X-RateLimit-Window': '900',
};

function verifyOnce(req) {
  const h = req.headers;
  const text = `${req.method}\n${req.url}\n${h.date}\nhost:${h.host}\ncontent-type:${h['content-type']}\nx-svc-version:${h['x-svc-version']}\n`;
  const digest = createHmac('sha256', signingKey).update(text).digest();
  const given = Buffer.from(String(h.authorization).slice(-64), 'hex');
  return given.length === digest.length && timingSafeEqual(digest, given);
}

const signed = process.env.BARE_SIGNED === '1';
const server = http.createServer({ keepAlive: true }, (req, res) => {
  if (signed) {
    verifyOnce(req); // a real server refuses on false; the baseline only pays for the check
    res.writeHead(200, { ...contractHeaders, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  } else {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  }
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
