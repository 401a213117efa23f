import fs from 'node:fs';
import type http from 'node:http';
import { startServer, type RecordedRequest } from './fakes/http-server.js';

/**
 * What one path answers. `body` is sent as it is, `json` as JSON text, `file` read at each request
 * (a test may change the file between syncs). Status 200 and `application/json` unless said.
 */
export interface Fixture {
  body?: string | Buffer;
  json?: unknown;
  file?: string;
  status?: number;
  type?: string;
  headers?: Record<string, string>;
}

/** A fixture, or a function giving one per request (for bodies that change or name the server's own URL). */
export type Route = Fixture | ((req: RecordedRequest, url: string) => Fixture);

export interface FixtureServerOptions {
  /**
   * Runs first for every request (after it is recorded). If it returns true or has answered `res`
   * (a 304, an answer that comes late or never), the route is not served.
   */
  onRequest?: (req: RecordedRequest, res: http.ServerResponse) => boolean | void;
}

export interface FixtureServer {
  /** The base URL, `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** Every request received, in order (method, url with its query, headers, body). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server for a test's fixture files: `routes` maps a path (the query is not part of
 * the match) to what it answers; `'*'` answers every other path; a path not listed answers 404 `{}`.
 * Built on fakes/http-server's `startServer`, which records the requests.
 */
export async function startFixtureServer(routes: Record<string, Route>, options: FixtureServerOptions = {}): Promise<FixtureServer> {
  const server = await startServer((req, res) => {
    if (options.onRequest?.(req, res) === true || res.headersSent || res.writableEnded) return;
    const pathname = req.url.split('?')[0]!;
    const route = routes[pathname] ?? routes['*'];
    if (route === undefined) return send(res, { status: 404, body: '{}' });
    send(res, typeof route === 'function' ? route(req, server.url) : route);
  });
  return server;
}

function send(res: http.ServerResponse, fixture: Fixture): void {
  const body = fixture.file !== undefined ? fs.readFileSync(fixture.file) : fixture.json !== undefined ? JSON.stringify(fixture.json) : (fixture.body ?? '');
  res.writeHead(fixture.status ?? 200, { 'content-type': fixture.type ?? 'application/json', ...fixture.headers });
  res.end(body);
}
