import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../package-root.js';
import { AppError } from './errors.js';

/**
 * The web console (web/, built to dist/web by scripts/build-console.ts) served by the API's own
 * process. Files are read once into memory with their precompressed .br/.gz twins; a URL is
 * only ever a key into that map (no path reaches the file system). Under /assets/ the names
 * carry a content hash, so they are cached for a year; everything else is revalidated. The
 * console's screens live under CONSOLE_PATHS, each answered with index.html (the console's own
 * router reads the URL); every other path keeps the API's JSON 404, and no API route is shadowed
 * (a catch-all would also catch what the router refuses, such as an over-long path parameter).
 */
export const CONSOLE_DIR = path.join(PACKAGE_ROOT, 'dist/web');

/**
 * Scripts, styles, images and API calls from this origin only; no inline script or style, no
 * plugins, no framing, no <base> rewriting, forms post only here.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return assets;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const ext = path.extname(file);
    const type = TYPES[ext];
    if (!type) continue; // .br, .gz, the build fingerprint: never served by their own name
    const rel = `/${path.relative(dir, file).split(path.sep).join('/')}`;
    const twin = (suffix: string) => (fs.existsSync(file + suffix) ? fs.readFileSync(file + suffix) : undefined);
    const br = twin('.br');
    const gzip = twin('.gz');
    assets.set(rel, { type, body: fs.readFileSync(file), ...(br ? { br } : {}), ...(gzip ? { gzip } : {}) });
  }
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) {
  const accepts = String(request.headers['accept-encoding'] ?? '');
  reply.header('content-type', asset.type).header('cache-control', cacheControl).header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding');
  if (asset.br && /\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(asset.br);
  if (asset.gzip && /\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/** The console's URL space (web/src/app.tsx's routes live under these), next to its files. */
export const CONSOLE_PATHS = [
  '/', '/sign-in', '/favicon.svg', '/assets/*',
  '/alerts', '/alerts/*', '/intel/*', '/agents', '/agents/*', '/destinations', '/destinations/*',
  '/triage-routes', '/hunt', '/hunt/*', '/settings/*', '/insights', '/evaluations', '/evaluations/*', '/coverage',
  '/approvals', '/approvals/*', '/detections', '/detections/*',
];

export function registerConsole(app: FastifyInstance, opts: { dir?: string } = {}): void {
  let assets: Map<string, Asset> | null = null;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0]!;
    assets ??= loadAssets(opts.dir ?? CONSOLE_DIR);
    const index = assets.get('/index.html');
    if (!index) throw new AppError(503, 'The web console is not built: run `npm run build:console` (npm install and npm start build it)');
    const asset = assets.get(pathname);
    if (asset && pathname !== '/index.html') {
      return send(request, reply, asset, pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
    if (pathname.startsWith('/assets/')) throw new AppError(404, `Route GET ${pathname} not found`);
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cross-origin-opener-policy', 'same-origin');
    return send(request, reply, index, 'no-cache');
  };
  for (const url of CONSOLE_PATHS) app.get(url, { config: { public: true }, schema: { hide: true } }, handler);
}
