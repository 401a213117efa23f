import Fastify from 'fastify';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobCatalog, createServiceRegistry, manifestConflicts, MODULES, READERS, registerModules, SCHEDULER_PASSES, serviceEvents, TOOLS } from '../../src/composition.js';
import { agentsModule } from '../../src/modules/agents/index.js';
import { alertsModule } from '../../src/modules/alerts/index.js';
import { configModule } from '../../src/modules/config/index.js';
import { destinationsModule } from '../../src/modules/destinations/index.js';
import { defineModule } from '../../src/platform/module.js';
import { createAuthenticator } from '../../src/platform/auth/authenticator.js';
import { createInvalidationBus } from '../../src/platform/cache/invalidation-bus.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createTestApp, type TestContext } from '../support/app.js';

/** The composition root (src/composition.ts): the modules' manifests, assembled once each. */
let t: TestContext;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const repeated = (names: readonly string[]) => names.filter((n, i) => names.indexOf(n) !== i);

describe('module manifests', () => {
  it('declare every module, table, tool, reader and scheduler pass once, and owned tables are disjoint', () => {
    expect(manifestConflicts()).toEqual([]);
    const owned = MODULES.flatMap((m) => m.owns);
    expect(repeated(owned)).toEqual([]);
    expect(owned).toEqual(expect.arrayContaining(['agents', 'alerts', 'agent_runs', 'output_destinations', 'destination_deliveries']));
    // The built-in tools are the union of the modules' tools: the tools module's own and the alert tools.
    expect(Object.keys(TOOLS)).toEqual([
      'search_intel_items', 'lookup_indicator', 'record_indicator_check', 'send_to_destination', 'http_request',
      'get_alert', 'comment_on_alert', 'update_alert', 'set_alert_status', 'create_alert',
      'block_indicator', 'unblock_indicator',
    ]);
    expect(TOOLS.set_alert_status!.permissions).toEqual(['alert.triage']);
    expect(Object.keys(READERS).sort()).toEqual(['agentTriggerSettings', 'destinationHealth', 'runAlert', 'runSandbox', 'taxiiExtraCollections', 'taxiiExtraObjects']);
    expect(repeated(SCHEDULER_PASSES.map((p) => p.name))).toEqual([]);
    expect(SCHEDULER_PASSES.map((p) => p.name).sort()).toEqual(['alert event recovery', 'approval expiry', 'blocklist expired entries', 'correlation window prune', 'hunt intel pass', 'intel-out refresh', 'run sweep', 'source scheduler tick', 'trigger scheduler tick']);
  });

  it('reports what two modules both declare', () => {
    const factory = () => {
      throw new Error('not built');
    };
    const a = defineModule({ name: 'a', owns: ['widgets', 'gadgets'], tools: { poke: { permissions: ['tool.use'], factory } } });
    const b = defineModule({ name: 'b', owns: ['gadgets'], tools: { poke: { permissions: [], factory } }, schedulerPasses: [{ name: 'tick', run: async () => {} }] });
    const c = defineModule({ name: 'b', owns: [], schedulerPasses: [{ name: 'tick', run: async () => {} }] });
    expect(manifestConflicts([a, b, c])).toEqual(['module "b" (b, b)', 'table "gadgets" (a, b)', 'tool "poke" (a, b)', 'scheduler pass "tick" (b, b)']);
  });

  it('registers every job type once', () => {
    const http = createGuardedClient({ allowPrivateNetworks: true, retries: 0 });
    const names = buildJobCatalog({ db: t.database.db, secrets: t.secrets, http, logger }).all().map((j) => j.name);
    expect(repeated(names)).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['agents:run', 'delivery:send', 'hunt:reassess']));
  });

  it('builds a module’s services outside the API: a worker reaches another module’s commands without HTTP', async () => {
    const http = createGuardedClient({ allowPrivateNetworks: true, retries: 0 });
    const services = createServiceRegistry({ db: t.database.db, secrets: t.secrets, logger, events: serviceEvents(), http, baseUrl: 'http://127.0.0.1:8080', tools: TOOLS, readers: READERS });
    const alerts = services.of(alertsModule);
    // Built once per process: the same commands every time they are asked for.
    expect(services.of(alertsModule)).toBe(alerts);
    // Organization A never saved its triage routing.
    expect(await alerts.routing.stored({ actor: { organizationId: t.orgA.organization.id } } as never)).toBeUndefined();
    expect(typeof services.of(agentsModule).update).toBe('function');
    // config needs destinations: the worker role has no destinations cache, and says so.
    expect(() => services.forModule(configModule).of(destinationsModule)).toThrow("destinations' commands are built over the API role's destinations cache; this role has none");
    await http.close();
  });

  it('registers every route once, each module its own', async () => {
    const app = Fastify();
    const routes: string[] = [];
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${r.url}`);
    });
    registerModules(app, {
      config: t.config,
      database: t.database,
      logger,
      authenticator: createAuthenticator(t.database.db),
      secrets: t.secrets,
      invalidation: createInvalidationBus(),
      metrics: new Registry(),
    });
    expect(repeated(routes)).toEqual([]);
    expect(routes).toEqual(expect.arrayContaining(['GET /api/agents', 'POST /api/alerts/:alertId/status', 'GET /api/output-destinations/:id', 'GET /api/insights']));
    await app.close();
  });
});
