#!/usr/bin/env node
// Development and test server for the dashboard (not for production: the
// gateway will serve ui/dist itself at `/`). Serves ui/dist as static files
// and forwards every /api/ request, streamed both ways, to the gateway named
// by MARS_URL.
//
// Usage: MARS_URL=http://127.0.0.1:7005 node ui/serve.mjs
// Environment:
//   MARS_URL   the gateway (default http://127.0.0.1:7005, as `make run`)
//   PORT       port to listen on (default 7080; 0: a free one)
//   HOST       address to bind (default 127.0.0.1)
//   UI_DIST    the directory served (default ui/dist next to this file)
// Prints "dashboard: http://HOST:PORT/" on standard output once listening;
// stops on SIGTERM or SIGINT.
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = normalize(process.env.UI_DIST || join(here, 'dist'));
const target = new URL(process.env.MARS_URL || 'http://127.0.0.1:7005');
const port = Number(process.env.PORT ?? 7080);
const host = process.env.HOST || '127.0.0.1';
if (target.protocol !== 'http:') {
  console.error(`serve: MARS_URL must be an http:// URL, not ${target.href}`);
  process.exit(2);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve: PORT must be 0..65535, not ${process.env.PORT}`);
  process.exit(2);
}
try {
  statSync(join(dist, 'index.html'));
} catch {
  console.error(`serve: ${dist}/index.html is missing: run \`npm ci && npm run build\` in ui/ first`);
  process.exit(1);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};
// The policy the gateway should send with index.html too: the app needs
// nothing but its own scripts, styles and API (no inline script or style).
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
// Hashed assets never change; index.html must be re-read each time.
const cacheFor = (p) => (p.startsWith(`${dist}${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');

function proxy(req, res) {
  const headers = { ...req.headers, host: target.host };
  delete headers.connection;
  const up = http.request(
    { host: target.hostname, port: target.port || 80, method: req.method, path: req.url, headers },
    (ur) => {
      res.writeHead(ur.statusCode || 502, ur.headers);
      ur.pipe(res);
    },
  );
  up.on('error', (e) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'bad_gateway', message: `serve.mjs: ${target.host}: ${e.message}` } }));
    } else res.destroy();
  });
  res.on('close', () => up.destroy());
  req.pipe(up);
}

function serveFile(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  let file = normalize(join(dist, path));
  if (file !== dist && !file.startsWith(dist + sep)) {
    res.writeHead(404).end();
    return;
  }
  let st;
  try {
    st = statSync(file);
    if (st.isDirectory()) {
      file = join(file, 'index.html');
      st = statSync(file);
    }
  } catch {
    // Client-side routes (paths without an extension) get the app.
    if (extname(path) === '') {
      file = join(dist, 'index.html');
      st = statSync(file);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
  }
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
    'Content-Length': st.size,
    'Cache-Control': cacheFor(file),
    'X-Content-Type-Options': 'nosniff',
    ...(extname(file) === '.html' ? { 'Content-Security-Policy': CSP } : {}),
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
}

const server = http.createServer((req, res) => {
  if (req.url === '/api' || req.url.startsWith('/api/')) proxy(req, res);
  else serveFile(req, res);
});
server.listen(port, host, () => {
  const a = server.address();
  console.log(`dashboard: http://${host}:${a.port}/ (API from ${target.origin})`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
