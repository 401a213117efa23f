import type { QueryKey, UseQueryOptions } from '@tanstack/react-query';
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api/schema';

/**
 * The typed client of Rampart's public API (types generated from its OpenAPI document by
 * `npm run gen:api`). It sends the session cookie, never a key; requests that change state carry
 * the session's CSRF token, which lives in memory only.
 */
export type Schemas = components['schemas'];
export type Paths = paths;
export type Query<P extends keyof paths, M extends 'get' = 'get'> = NonNullable<paths[P][M] extends { parameters: { query?: infer Q } } ? Q : never>;
/** The JSON body an operation takes. */
export type Body<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = NonNullable<paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never>;
/**
 * What a screen may add to a resource's query (web/src/api/<resource>.ts): when it runs, how
 * fresh it stays, how often it polls; never its key or its fetch, which the resource file owns.
 */
export type QueryOptions<T> = Omit<UseQueryOptions<T, Error, T, QueryKey>, 'queryKey' | 'queryFn'>;

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

const session: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ response, request }) {
    // The session ended (expired, signed out elsewhere, key revoked): back to the sign-in screen.
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/session')) onSignedOut();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(session);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

function messageOf(status: number, body: unknown): string {
  const b = body as { error?: string; issues?: Array<{ path: string; message: string }>; missingPerms?: string[] } | undefined;
  if (b?.issues?.length) return `${b.error}: ${b.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`;
  if (b?.missingPerms?.length) return `${b.error}: ${b.missingPerms.join(', ')}`;
  return b?.error ?? `Request failed (${status})`;
}

/** The data of a successful answer, or an ApiError with the API's own message. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw new ApiError(response.status, messageOf(response.status, error), error);
  return data as T;
}
