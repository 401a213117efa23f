import { request } from 'undici';

/** One JSON request to the app under test; a status ≥ 300 throws with the start of the answer. */
export async function call(url: string, method: 'GET' | 'POST' | 'PUT', headers: Record<string, string>, body?: unknown): Promise<Record<string, any>> {
  const res = await request(url, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.body.json()) as Record<string, any>;
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}
