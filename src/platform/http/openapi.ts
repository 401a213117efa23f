import type { FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { resolveRouteSchema } from './lazy-schemas.js';

/**
 * The document's tags: the groups of the API spec's "What the service does" that have operations, in its order, then this service's
 * own (Evaluations, Configuration as code, Insights, Block Lists, Operations). Client generators make one class
 * per tag from these names and descriptions (test/platform/openapi-lint.test.ts checks every operation's
 * tags are declared here).
 */
export const TAGS = [
  { name: 'Agents', description: 'AI agents (prompt, model, tools, output schema), their versions, synchronous and asynchronous runs, model providers and aliases.' },
  { name: 'Agent Runs', description: 'The history of agent runs: input, trigger context, steps, token usage, timings and result.' },
  { name: 'Agent Triggers', description: 'What starts an agent: incoming webhooks (signed, with a rotatable secret) and cron schedules.' },
  { name: 'Alerts', description: 'Alerts with their timeline, status and severity, and the ordered triage routes that choose which agent triages a new alert.' },
  { name: 'Output Destinations', description: 'Where agent output and alerts are pushed (Slack, Teams, Jira, Linear, Tines, webhooks…), with a delivery log and redelivery.' },
  { name: 'Detections', description: 'Detection rules that live outside Rampart (code detections, Sigma import) and the hits they report.' },
  { name: 'Hunt', description: 'Autonomous hunt: the asset inventory, sightings, CVE threats assessed against them, and hunt alert settings.' },
  { name: 'Intel', description: 'The threat-intelligence feed: sources, items, flattened indicators (IOCs), statistics, and its exports (STIX, MISP feed, TAXII 2.1).' },
  { name: 'MITRE Coverage', description: 'ATT&CK coverage: detections against the techniques the intel names, Navigator layers out and in.' },
  { name: 'Tools', description: 'The tools agents may use, built-in and from registered MCP servers.' },
  { name: 'Approvals', description: 'Extension: tool calls of agent runs that wait for a person (tool policy `approve`), decided from the console, the API or Slack (docs/approvals.md).' },
  { name: 'Audit Logs', description: 'Who changed what in the organization, newest first.' },
  { name: 'Users', description: 'Users of the organization and web-console sessions.' },
  { name: 'SCIM', description: 'Extension: SCIM 2.0 (RFC 7643/7644) provisioning from an identity provider (Okta, Microsoft Entra ID…), with a bearer token per provider: users and groups created, updated, deactivated and deleted.' },
  { name: 'Roles', description: 'System and custom roles and their permissions.' },
  { name: 'Organizations', description: 'Organization-wide credentials: API keys.' },
  { name: 'Evaluations', description: 'Extension: evaluation datasets and agent evaluations scored by a judge model.' },
  { name: 'Configuration as code', description: 'Extension: plan, apply and export the organization\'s configuration as YAML documents.' },
  { name: 'Insights', description: 'Extension: alert, agent, delivery, intel and hunt figures over a time window.' },
  { name: 'Block Lists', description: 'Extension: Rampart\'s own response action: block lists of addresses, domains, URLs and hashes that people and agents fill, served to firewalls (PAN-OS EDL, FortiGate) and as TAXII 2.1 collections, with an allow list of values never blocked.' },
  { name: 'Operations', description: 'Unauthenticated probes for orchestrators and monitoring: liveness, readiness, Prometheus metrics.' },
] as const;

const DESCRIPTION = `Rampart: an organization-scoped security-automation API.

**Authentication.** Every operation except those tagged Operations needs \`Authorization: Bearer <API key>\`.
A key acts as the user who created it (same organization, role and permissions). Missing,
invalid, revoked or expired keys, and keys of deactivated users, get 401.

**Errors** are JSON with an \`error\` message. 400 adds \`issues\` (one per failed field:
\`path\`, \`message\`, \`code\`, \`location\`); 403 adds \`missingPerms\`, exactly the permissions the
key's role lacks. Ids of another organization answer 404, as unknown ids do. 429 carries
\`Retry-After\`. 500 never shows internals; quote the \`x-request-id\` response header when reporting one.

**Deprecation.** A deprecated operation keeps working and sends \`Deprecation\`, \`Sunset\` and
\`Link: <replacement>; rel="successor-version"\` headers; past its sunset date it answers 410
naming the replacement.

**Pagination.** Intel lists take \`page\` and \`perPage\` and answer \`total, page, perPage, hasNext\`;
other lists take \`limit\` and \`offset\` and answer \`totalCount\`, except the agent-run listing \`GET /api/agent-runs\`,
which takes \`page\` and \`pageSize\` and answers \`runs, totalCount, page, pageSize, hasNext\` (the API contract names it as the exception).`;

/** `baseUrl` is RAMPART_BASE_URL (else this process's address): the document's one server. */
export async function registerOpenApi(app: FastifyInstance, options: { baseUrl: string }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rampart API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: options.baseUrl, description: 'This Rampart (RAMPART_BASE_URL)' }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A Rampart API key: `rmp_<prefix>_<secret>`' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // Stand-ins for schemas built on first use (platform/http/lazy-schemas.ts) are built here.
    transform: (input) => jsonSchemaTransform({ ...input, schema: resolveRouteSchema(input.schema) }),
    // Zod registers an input and an output variant of every named schema; only the ones some
    // operation reaches stay (a generator would emit dead types for the rest).
    transformObject: (input) => withoutUnusedSchemas(jsonSchemaTransformObject(input) as OpenApiDocument) as ReturnType<typeof jsonSchemaTransformObject>,
  });

  // The interactive reference serves its assets from this process: it works with no internet.
  // Its routes are public, as is the document itself.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true };
    });
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { deepLinking: true, persistAuthorization: true, url: '/api/docs/openapi.json' },
      staticCSP: true,
    });
  });

  app.get(
    '/api/docs/openapi.json',
    { config: { public: true }, schema: { hide: true } },
    async (_request, reply) => reply.type('application/json').send(app.swagger()),
  );
}

type OpenApiDocument = { paths?: unknown; components?: { schemas?: Record<string, unknown> } } & Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/**
 * The document with only the component schemas that its paths reach, directly or through other
 * schemas, sorted by name (code-unit order). Sorted because Zod's registry lists them in the order
 * their modules were evaluated, which differs between the sources (tsx, vitest) and the bundled
 * build (shared chunks evaluate first): the served document is then the same bytes either way.
 */
export function withoutUnusedSchemas<T extends OpenApiDocument>(document: T): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
    } else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
          const name = decodeURIComponent(value.slice(SCHEMA_REF.length));
          if (!reached.has(name)) {
            reached.add(name);
            visit(schemas[name]);
          }
        } else {
          visit(value);
        }
      }
    }
  };
  visit(document.paths);
  const kept = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => reached.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return { ...document, components: { ...document.components, schemas: kept } };
}
