import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './platform/logger.js';
import { startStep } from './platform/start-steps.js';
import { DataDirLockedError, EmbeddedStartError, asError, type EmbeddedDatabase } from './platform/db/embedded.js';
import { takeStopSignals, type StopSignals } from './platform/stop-signals.js';
import { startConfiguredEmbeddedDatabase } from './platform/db/start-embedded.js';
import type { WorkerRunner } from './platform/jobs/runner.js';
import type { Runtime } from './runtime.js';
import { SessionCheckError } from './platform/db/session-check.js';
import { parseFlags, USAGE, UsageError } from './cli/args.js';
import { baseUrlWarning, DatabaseConnectError, databaseConnectError, FIRST_ORGANIZATION_HINT, ListenError, listenError } from './cli/setup-hints.js';

// Only light modules are imported statically above: `rampart start|serve|worker` spawns the
// embedded PostgreSQL before loading the rest (the runtime, the modules, the HTTP app), so the
// database starts on the other core while Node compiles the code (issue 50: `npm start` → ready
// < 1 s). The rest is imported where a command needs it.

type Role = 'start' | 'serve' | 'worker';

/** The HTTP app's module, its import begun before the database is up (see main()). */
type AppModule = typeof import('./app.js');

async function runRole(role: Role, runtime: Runtime, appModule: Promise<AppModule> | null, stop: StopSignals): Promise<void> {
  const { config, logger } = runtime;
  startStep(logger, 'runtime open (database up, migrations checked)');
  let app: FastifyInstance | null = null;
  let stopListening: (() => Promise<void>) | null = null;
  let workers: WorkerRunner | null = null;
  let scheduler: { stop(): Promise<void> } | null = null;
  // Stops, in order, whatever has started so far: after "rampart ready", or when a stop signal
  // abandoned the start at one of the checkpoints below.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    // The scheduler first: no pass starts while requests finish, and those under way end (its
    // stop waits for them) long before the workers and the pool they query are closed.
    const schedulerStopped = scheduler?.stop();
    // Stop accepting requests and let in-flight ones finish, then stop taking jobs.
    await app?.close().catch((err) => logger.error({ err }, 'error closing the HTTP server'));
    await stopListening?.().catch(() => {});
    await schedulerStopped;
    await workers?.stop();
    await runtime.close();
    logger.info('stopped');
    process.exit(0);
  };
  // From here a stop signal abandons the rest of the start: the step under way finishes (code
  // being compiled cannot be interrupted), and the next checkpoint stops what has started.
  let ready = false;
  stop.onStop((signal) => {
    if (ready) void shutdown(signal);
    else logger.info({ signal, role }, `start abandoned on ${signal}: stopping what has started`);
  });
  const warning = baseUrlWarning(config);
  if (warning) logger.warn({ baseUrl: config.baseUrl }, warning);
  const [{ bootstrapIfEmpty }, { recordConsoleAddress }] = await Promise.all([import('./modules/organizations/index.js'), import('./modules/sessions/index.js')]);
  const bootstrapped = await bootstrapIfEmpty(runtime.database.db, {
    dataDir: config.dataDir,
    logger,
    ...(config.bootstrapApiKey ? { apiKeyValue: config.bootstrapApiKey } : {}),
  });
  if (bootstrapped && config.databaseUrl && !config.bootstrapApiKey) {
    logger.warn(
      { host: os.hostname(), file: path.join(config.dataDir, 'bootstrap-api-key') },
      'this process created the first organization: its admin API key is in the file named here, on this host only. With several processes, create organizations with `rampart admin org create` (docs/operations.md)',
    );
  }
  if (stop.received) return shutdown(stop.received);
  // Each role loads only its own half (docs/performance.md, start-up): the API never loads the
  // job runner and the job handlers' dependencies, the worker never loads the HTTP app.
  if (role !== 'worker') {
    const { buildApp } = await (appModule ?? import('./app.js'));
    startStep(logger, 'the API\'s code evaluated');
    if (stop.received) return shutdown(stop.received);
    app = await buildApp(runtime);
    startStep(logger, 'the app built (routes registered)');
    if (stop.received) return shutdown(stop.received);
    // One LISTEN connection for every in-process cache (API keys, destinations).
    stopListening = await runtime.invalidation.listen(runtime.database.pool);
    await app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
      throw listenError(err, config.host, config.port) ?? err;
    });
    startStep(logger, 'listening');
    // For admin commands run from another shell, without this process's PORT or RAMPART_BASE_URL.
    await recordConsoleAddress(runtime.database.db, config.baseUrl);
  }
  if (stop.received) return shutdown(stop.received);
  if (role !== 'serve') {
    const [{ buildJobCatalog }, { startWorkers }, { PLATFORM_CRONTAB }, { startScheduler }] = await Promise.all([
      import('./jobs.js'),
      import('./platform/jobs/runner.js'),
      import('./platform/jobs/maintenance.jobs.js'),
      import('./scheduler.js'),
    ]);
    if (stop.received) return shutdown(stop.received);
    workers = await startWorkers({
      db: runtime.database.db,
      pool: runtime.database.pool,
      catalog: buildJobCatalog({ db: runtime.database.db, secrets: runtime.secrets, http: runtime.http, logger, baseUrl: config.baseUrl, osvMaxInflatedBytes: config.osvMaxInflatedBytes, osvShardRecords: config.osvShardRecords, authenticator: runtime.authenticator, allowPrivateNetworks: config.allowPrivateNetworks }),
      logger: logger.child({ role: 'worker' }),
      concurrency: config.workerConcurrency,
      reservedConcurrency: config.deliveryConcurrency,
      deadWorkerAfterMs: config.deadWorkerAfterMs,
      crontab: PLATFORM_CRONTAB,
    });
    // A worker pool that dies (not one we stopped) must not leave a process that looks alive.
    workers.done.catch((err: unknown) => {
      logger.fatal({ err }, 'the worker pool stopped unexpectedly; exiting');
      process.exit(1);
    });
    scheduler = startScheduler({ db: runtime.database.db, logger: logger.child({ role: 'scheduler' }), deadWorkerAfterMs: config.deadWorkerAfterMs });
  }
  if (stop.received) return shutdown(stop.received);
  startStep(logger, 'workers started');
  ready = true;
  logger.info({ role, url: app ? config.baseUrl : undefined, dataDir: config.databaseUrl ? undefined : config.dataDir }, 'rampart ready');
}

/** Set once a stop signal abandoned a start before its runtime was open: it exits the process. */
let abandoning: Promise<never> | null = null;

/**
 * A start abandoned by a stop signal while the database starts or the migrations run. The
 * embedded PostgreSQL is stopped as soon as its own start is done (a second at most), without
 * waiting for the migrations: those under way fail and roll back, as after a crash, and run again
 * at the next start (their locks are transaction scoped). Then the runtime's connections are
 * closed and the process exits 0, as any stop by signal does (docs/operations.md).
 */
async function abandonStart(embedded: Promise<EmbeddedDatabase> | null, opening: Promise<Runtime>, logger: ReturnType<typeof createLogger>): Promise<never> {
  // An external database: its server rolls back what this process's connections left open.
  if (embedded) {
    const database = await embedded.catch(() => null);
    await database?.stop();
    const runtime = await opening.catch(() => null);
    await runtime?.close().catch(() => {});
  }
  logger.info('stopped');
  process.exit(0);
}

/** After `migrate`: how to get the first organization and its admin key (none exists yet). */
async function printFirstSteps(runtime: Runtime): Promise<void> {
  const existing = await runtime.database.db.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
  if (!existing) process.stderr.write(FIRST_ORGANIZATION_HINT);
}

async function adminCommand(args: string[], runtimeFor: () => Promise<Runtime>): Promise<void> {
  const [noun, verb, ...rest] = args;
  if (noun === 'login-link') return loginLinkCommand(args.slice(1), runtimeFor);
  if (noun !== 'org' || verb !== 'create') throw new UsageError(`unknown admin command "${[noun, verb].filter(Boolean).join(' ')}"`);
  const { createOrganization } = await import('./modules/organizations/index.js');
  const { values } = parseFlags(rest, {
    name: { required: true, description: 'organization name' },
    'admin-email': { required: true, description: 'email of its Super Admin' },
    'admin-name': { description: 'display name of its Super Admin' },
  });
  const email = values['admin-email']!;
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--admin-email must be an email address');
  const runtime = await runtimeFor();
  try {
    const created = await createOrganization(runtime.database.db, {
      name: values.name!,
      adminEmail: email,
      ...(values['admin-name'] ? { adminName: values['admin-name'] } : {}),
    });
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } finally {
    await runtime.close();
  }
}

/** Prints a one-time web console sign-in link (15 minutes) for an active user. */
async function loginLinkCommand(args: string[], runtimeFor: () => Promise<Runtime>): Promise<void> {
  const { consoleAddress, createLoginLink } = await import('./modules/sessions/index.js');
  const { values } = parseFlags(args, {
    email: { required: true, description: 'email of the user to sign in' },
    org: { description: 'organization id, when the email belongs to users of several organizations' },
  });
  if (values.org !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(values.org)) {
    throw new UsageError('--org must be an organization id (UUID)');
  }
  const runtime = await runtimeFor();
  try {
    const link = await createLoginLink(runtime.database.db, {
      email: values.email!,
      // The configured address, else the one the running server recorded, else this process's default.
      baseUrl: runtime.config.baseUrlConfigured ? runtime.config.baseUrl : ((await consoleAddress(runtime.database.db)) ?? runtime.config.baseUrl),
      ...(values.org ? { organizationId: values.org } : {}),
    });
    process.stdout.write(`${link.url}\n`);
    process.stderr.write(`One-time sign-in link for ${values.email}, valid until ${link.expiresAt.toISOString()}.\n`);
  } finally {
    await runtime.close();
  }
}

/** openRuntime, its module (the migrations, the seed, the database layer) loaded on first use. */
async function openRuntimeWith(config: ReturnType<typeof loadConfig>, logger: ReturnType<typeof createLogger>, opts?: { attachIfRunning?: boolean; poolSize?: number; embedded?: Promise<EmbeddedDatabase> | null }): Promise<Runtime> {
  const { openRuntime } = await import('./runtime.js');
  return openRuntime(config, logger, opts).catch((err: unknown) => {
    throw (config.databaseUrl ? databaseConnectError(err, config.databaseUrl) : null) ?? err;
  });
}

/**
 * Errors whose message says all a user needs (no stack). CliError and LoginLinkError live in
 * modules only the commands that throw them load: those are looked up here, once something failed.
 */
async function isExplained(err: unknown): Promise<boolean> {
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof EmbeddedStartError || err instanceof SessionCheckError || err instanceof ListenError || err instanceof DatabaseConnectError) return true;
  if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) return true;
  if (!(err instanceof Error)) return false;
  try {
    const [{ CliError }, { LoginLinkError }] = await Promise.all([import('./cli/config-commands.js'), import('./modules/sessions/index.js')]);
    return err instanceof CliError || err instanceof LoginLinkError;
  } catch {
    // The code those classes live in does not load: the error cannot be one of theirs.
    return false;
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'start', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Agents as code: HTTP clients of a running server, with no database or server configuration of their own.
  if (command === 'apply' || command === 'export') {
    const { applyCommand, exportCommand } = await import('./cli/config-commands.js');
    const code = await (command === 'apply' ? applyCommand(rest) : exportCommand(rest));
    // Exit once stdout is flushed: the exit code is the answer CI reads (2: --dry-run found changes).
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(code);
  }
  // Sigma rules offline (convert, test): no server, no database.
  if (command === 'detections') {
    const { detectionsCommand } = await import('./cli/detections-commands.js');
    const code = await detectionsCommand(rest);
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(code);
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  switch (command) {
    case 'start':
    case 'serve':
    case 'worker': {
      // The embedded PostgreSQL first: its postmaster is spawned in this call, before any of the
      // server's code is loaded. Then the API's half (Fastify, every route and schema: most of
      // start-up's JavaScript) and the runtime are read and compiled while it starts. A failed
      // start or import surfaces where it is awaited; until then it must not count as an
      // unhandled rejection.
      startStep(logger, 'configuration loaded');
      const stop = takeStopSignals();
      // In a process group of its own: a terminal's Ctrl-C reaches this process only, which stops
      // the database after the in-flight requests and jobs (platform/db/embedded.ts).
      const embedded = config.databaseUrl ? null : startConfiguredEmbeddedDatabase(config, logger, { ownProcessGroup: true });
      embedded?.catch(() => {});
      startStep(logger, 'PostgreSQL spawned');
      const appModule = command === 'worker' ? null : import('./app.js');
      appModule?.catch(() => {});
      const opening = openRuntimeWith(config, logger, { embedded });
      // Until the runtime is open, a stop signal abandons the start here; runRole takes over after.
      stop.onStop((signal) => {
        logger.info({ signal, role: command }, `start abandoned on ${signal}: stopping the database${embedded ? ' (the embedded PostgreSQL)' : ' connections'}`);
        abandoning = abandonStart(embedded, opening, logger);
      });
      const runtime = await opening;
      if (abandoning) return abandoning;
      return runRole(command, runtime, appModule, stop);
    }
    case 'migrate': {
      const runtime = await openRuntimeWith(config, logger);
      logger.info('database is up to date');
      try {
        await printFirstSteps(runtime);
      } finally {
        await runtime.close();
      }
      return;
    }
    case 'admin':
      // Attaches to the embedded database of a running server, or starts it for the command.
      // Never a new, empty database: admin commands refuse when none exists there (cli/admin-database.ts).
      return adminCommand(rest, async () => {
        const { assertInstalledDatabase } = await import('./cli/admin-database.js');
        assertInstalledDatabase(config);
        return openRuntimeWith(config, createLogger('warn'), { attachIfRunning: true, poolSize: 2 });
      });
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

// A promise rejected with a non-Error somewhere unawaited: name it instead of Node's bare reason.
process.on('unhandledRejection', (reason: unknown) => {
  const e = asError(reason, 'an asynchronous operation');
  process.stderr.write(`rampart: unhandled rejection: ${e.stack ?? e.message}\n`);
  process.exit(1);
});

main(process.argv.slice(2)).catch(async (err: unknown) => {
  // A start abandoned by a signal: what failed under it (the migrations cut off) is no error to report.
  if (abandoning) return abandoning;
  if (err instanceof UsageError) {
    process.stderr.write(`rampart: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (await isExplained(err)) {
    process.stderr.write(`rampart: ${(err as Error).message}\n`);
    process.exit(1);
  }
  // Anything else: the whole error, and never a bare `undefined` for a non-Error rejection.
  const e = asError(err, 'start-up');
  process.stderr.write(`rampart: ${e.stack ?? e.message}\n  What to do: check the configuration and the data directory, then start again; report it if it persists.\n`);
  process.exit(1);
});
