import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { actorOf } from '../../platform/http/request-hooks.js';
import { withErrors } from '../../platform/http/responses.js';
import { refang } from '../intel/index.js';
import { ExportBody, ExportQuerySchema } from './export.schemas.js';
import { CONTENT_TYPES, type ExportService } from './export.service.js';

const EXTENSIONS = { txt: 'txt', csv: 'csv', stix: 'json', misp: 'json' } as const;

export function registerExportRoutes(root: FastifyInstance, deps: { exports: ExportService }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/iocs/export', {
    // Basic too: firewalls fetching block lists (PAN-OS EDL, FortiGate feeds) can only send a user name and password.
    config: { permissions: ['intel.read'], basicAuth: true },
    schema: {
      operationId: 'exportIocs',
      tags: ['Intel'],
      summary: 'Export indicators (txt block list, CSV, STIX 2.1 bundle, MISP event), streamed',
      description:
        'One entry per indicator (type and normalized value) whatever the number of items naming it, oldest change first. ' +
        'Filters as `/iocs` (type, status, search) plus `since` and `minConfidence`. `txt` writes IP addresses without CIDR (networks wider than one address are left out) and hosts for domains. See docs/intel-out.md.',
      querystring: ExportQuerySchema,
      response: withErrors({ 200: ExportBody }),
    },
  }, async (req, reply) => {
    const { since, type, search, ...rest } = req.query;
    const filters = { types: type, search: search ? refang(search) : undefined, since: since ? new Date(since) : undefined };
    const stream = await deps.exports.export(actorOf(req).organizationId, { ...rest, ...filters });
    return reply
      .header('content-type', CONTENT_TYPES[req.query.format])
      .header('content-disposition', `attachment; filename="rampart-iocs${type ? `-${type.join('-')}` : ''}.${EXTENSIONS[req.query.format]}"`)
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
