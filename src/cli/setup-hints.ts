import type { Config } from '../config.js';

/**
 * What the `rampart` command tells an operator setting it up: the hints for several processes on
 * one database (docs/operations.md, production layout), and the start's failures an operator
 * causes and fixes (a taken port, an unusable DATABASE_URL), said as a sentence and what to do
 * instead of a stack trace.
 */

/**
 * On an external database, several processes usually share it: every one must hand out the
 * same public address (webhook URLs, sign-in links, links in delivered messages), so an unset
 * RAMPART_BASE_URL, which falls back to the process's own HOST:PORT, is worth a warning.
 */
export function baseUrlWarning(config: Pick<Config, 'databaseUrl' | 'baseUrlConfigured'>): string | null {
  if (!config.databaseUrl || config.baseUrlConfigured) return null;
  return "RAMPART_BASE_URL is not set: webhook URLs, sign-in links and links in delivered messages use this process's own address. Processes sharing a database (several APIs behind a proxy, workers) must all set it to the one public address";
}

/** After `migrate`, when no organization exists yet: how to get the first one and its admin key. */
export const FIRST_ORGANIZATION_HINT =
  'No organization exists yet. Create the first one and its admin API key (printed once) with:\n' +
  '  rampart admin org create --name "My organization" --admin-email admin@example.com\n' +
  'Otherwise the first process to start creates a default one and writes its key to <RAMPART_DATA_DIR>/bootstrap-api-key on its own host.\n';

/** The HTTP server could not listen where it was told to: says why and what to change (no stack). */
export class ListenError extends Error {}

/**
 * `listen`'s system errors as an operator reads them (the first thing a second copy, or another
 * program on 8080, runs into), or null for any other error.
 */
export function listenError(err: unknown, host: string, port: number): ListenError | null {
  switch ((err as { code?: unknown } | null)?.code) {
    case 'EADDRINUSE':
      return new ListenError(`Port ${port} on ${host} is already in use by another program.\n  What to do: stop that program, or set PORT to a free port (e.g. PORT=${port + 1}).`);
    case 'EACCES':
      return new ListenError(`Not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges).\n  What to do: set PORT to 1024 or above, and put a reverse proxy in front for 80 or 443.`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ListenError(`HOST=${host} is not an address of this machine.\n  What to do: set HOST to one of its addresses: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`);
    default:
      return null;
  }
}

/** The external database (DATABASE_URL) could not be reached or refused us: says which and what to check. */
export class DatabaseConnectError extends Error {}

/** The first error code found on `err` or its causes (pg and pg-pool keep the system's or PostgreSQL's there). */
function codeOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 5) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  for (const inner of Array.isArray(errors) ? errors : []) {
    const found = codeOf(inner, depth + 1);
    if (found) return found;
  }
  return codeOf(cause, depth + 1);
}

/**
 * The first contact with DATABASE_URL failing as an operator reads it: where it tried (host,
 * port, database, user; never the password), what happened, what to check. Null for any other
 * error, which keeps its stack.
 */
export function databaseConnectError(err: unknown, databaseUrl: string): DatabaseConnectError | null {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return null;
  }
  const host = `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  const database = decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username);
  const user = decodeURIComponent(url.username);
  const at = `the database at ${host} (DATABASE_URL)`;
  const said = err instanceof Error ? err.message : String(err);
  switch (codeOf(err)) {
    case 'ECONNREFUSED':
      return new DatabaseConnectError(`Cannot connect to ${at}: the connection was refused.\n  What to do: check that PostgreSQL runs there and listens on that address and port.`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new DatabaseConnectError(`Cannot connect to ${at}: the host name "${url.hostname}" does not resolve.\n  What to do: check DATABASE_URL's host.`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new DatabaseConnectError(`Cannot connect to ${at}: ${said}.\n  What to do: check the network path to it (firewall, security group, VPN).`);
    case '28P01':
    case '28000':
      return new DatabaseConnectError(`The database at ${host} (DATABASE_URL) refused user "${user}": ${said}.\n  What to do: check DATABASE_URL's user and password, and the server's pg_hba.conf.`);
    case '3D000':
      return new DatabaseConnectError(`Database "${database}" does not exist on ${host} (DATABASE_URL).\n  What to do: create it (\`createdb ${database}\`, owned by "${user}"), or correct DATABASE_URL's path.`);
    default:
      return null;
  }
}
