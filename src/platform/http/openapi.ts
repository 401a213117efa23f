import type { FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** Tags of spec §1, plus Operations for the unauthenticated probes. */
export const TAGS = [
  'Agents',
  'Agent Runs',
  'Agent Triggers',
  'Agents as Code',
  'Skills',
  'Chat',
  'Alerts',
  'Output Destinations',
  'Detections',
  'Hunt',
  'Intel',
  'Threat Model',
  'MITRE Coverage',
  'Tools',
  'CLIs',
  'Artifacts',
  'Audit Logs',
  'Insights',
  'Users',
  'Roles',
  'Organizations',
  'Operations',
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
which takes \`page\` and \`pageSize\` and answers \`runs, totalCount, page, pageSize, hasNext\` (the spec, §8, names it as the exception).`;

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Rampart API', version: '1.0.0', description: DESCRIPTION },
      tags: TAGS.map((name) => ({ name })),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A Rampart API key: `rmp_<prefix>_<secret>`' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
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
