/** Minimal `--flag value` parsing for the rampart command (node:util parseArgs underneath). */
import { parseArgs } from 'node:util';

export function parseFlags(argv: string[], flags: Record<string, { required?: boolean; description: string }>) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.keys(flags).map((k) => [k, { type: 'string' as const }])),
    allowPositionals: true,
    strict: true,
  });
  const missing = Object.entries(flags).filter(([k, f]) => f.required && !values[k]).map(([k]) => `--${k}`);
  if (missing.length) throw new UsageError(`missing ${missing.join(', ')}`);
  return { values: values as Record<string, string | undefined>, positionals };
}

export class UsageError extends Error {}

export const USAGE = `Usage: rampart <command>

Commands:
  start                      API + workers + scheduler in one process (default of npm start)
  serve                      API only
  worker                     background workers and scheduler only
  migrate                    apply database migrations and exit
  admin org create --name N --admin-email E [--admin-name A]
                             create an organization with a Super Admin user and API key;
                             prints {organization, user, apiKey} as JSON
  admin login-link --email E [--org ID]
                             print a one-time web console sign-in link (valid 15 minutes)
  apply -f <file|folder> [--dry-run] [--prune] [--source REF]
                             agents as code: plan the files against RAMPART_URL (with
                             RAMPART_API_KEY), print it, apply it in one transaction;
                             --dry-run exits 2 when there are changes (docs/agents-as-code.md)
  export [-o DIR]            the organization's configuration as files (secrets as references)
  detections convert -f <file|dir> --target splunk|elasticsearch-lucene|esql|kusto [--json]
                             Sigma rules as SIEM queries, offline (docs/detections.md)
  detections test -f <file|dir>
                             run the rules' tests offline; exits 1 on a failure

Configuration comes from the environment; see the README.`;
