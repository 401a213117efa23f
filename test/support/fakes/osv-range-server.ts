import { createHash } from 'node:crypto';
import type http from 'node:http';
import { startServer, type RecordedRequest } from './http-server.js';

/**
 * An OSV mirror that serves one export as OSV's bucket (GCS) does: `GET` with an ETag, 304 on a
 * matching If-None-Match, HTTP Range requests (`bytes=a-b`, `bytes=a-`, `bytes=-n`: 206 with
 * Content-Range, 416 past the end), 412 on an If-Match that no longer holds. Under `/norange/` the
 * same export is served by a server that ignores Range (200, the whole export), as plain static
 * servers do. `failOnce(from)`: the next range request starting at `from` answers 503 once.
 * `changeBeforeNextShard(b)`: the export becomes `b` just before the next request that carries
 * If-Match (a shard's download, after the plan read the export). Under `/novalidators/` the export
 * is served with no ETag (If-Match ignored), as some static mirrors serve it.
 * `changeAfterPlan(b)`: the export becomes `b` once the next suffix range (`bytes=-n`, the plan's
 * first request) is answered. `holdPlan(f)`: the next suffix range is answered after `f()` resolves.
 */
export async function startOsvRangeServer(initial: Buffer) {
  let body = initial;
  const etag = () => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  const failing = new Set<number>();
  let next: Buffer | null = null;
  let afterPlan: Buffer | null = null;
  let hold: (() => Promise<void>) | null = null;
  const server = await startServer(async (req, res) => {
    const suffix = /^bytes=-\d+$/.test(String(req.headers.range ?? ''));
    if (suffix && hold) {
      const f = hold;
      hold = null;
      await f();
    }
    if (suffix && afterPlan) {
      const changed = afterPlan;
      afterPlan = null;
      res.once('finish', () => void (body = changed));
    }
    if (req.url.startsWith('/novalidators/')) return serve(req, res, false);
    if (next && req.headers['if-match']) [body, next] = [next, null];
    if (req.headers['if-none-match'] === etag()) {
      res.statusCode = 304;
      return res.end();
    }
    const ifMatch = req.headers['if-match'];
    if (ifMatch && ifMatch !== etag()) {
      res.statusCode = 412;
      return res.end();
    }
    return serve(req, res, true);
  });
  function serve(req: RecordedRequest, res: http.ServerResponse, validators: boolean) {
    if (validators) res.setHeader('etag', etag());
    res.setHeader('content-type', 'application/zip');
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (!req.url.startsWith('/norange/') && range) {
      const [from, to] = range[1] === '' ? [Math.max(0, body.length - Number(range[2])), body.length - 1] : [Number(range[1]), range[2] === '' ? body.length - 1 : Math.min(Number(range[2]), body.length - 1)];
      if (from >= body.length || from > to) {
        res.statusCode = 416;
        res.setHeader('content-range', `bytes */${body.length}`);
        return res.end();
      }
      if (failing.delete(from)) {
        res.statusCode = 503;
        return res.end('try again');
      }
      res.statusCode = 206;
      res.setHeader('accept-ranges', 'bytes');
      res.setHeader('content-range', `bytes ${from}-${to}/${body.length}`);
      return res.end(body.subarray(from, to + 1));
    }
    res.end(body);
  }
  return {
    ...server,
    setBody: (b: Buffer) => void (body = b),
    failOnce: (from: number) => void failing.add(from),
    changeBeforeNextShard: (b: Buffer) => void (next = b),
    changeAfterPlan: (b: Buffer) => void (afterPlan = b),
    holdPlan: (f: () => Promise<void>) => void (hold = f),
  };
}
