import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { actorOf } from '../../platform/http/request-hooks.js';
import { AppError } from '../../platform/http/errors.js';
import { toAppError } from '../../platform/http/error-handler.js';
import { ApiRoot, Collection, CollectionParams, Collections, Discovery, Envelope, Manifest, ObjectParams, taxiiResponses, TaxiiObjectsQuery, Versions } from './taxii.schemas.js';
import { acceptsTaxii21, TAXII_MEDIA_TYPE } from './taxii.fns.js';
import type { TaxiiService } from './taxii.service.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  406: 'Not acceptable',
  429: 'Too many requests',
  503: 'Service unavailable',
};

function sendTaxii(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}) {
  return reply.code(status).headers({ ...headers, 'content-type': TAXII_MEDIA_TYPE }).send(Buffer.from(JSON.stringify(body)));
}

/** Rampart errors as TAXII error messages; anything else goes to the application's handler. */
function taxiiErrorHandler(bodyLimit: number) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = err instanceof AppError ? err : toAppError(err, bodyLimit, request);
    if (!appError) throw err;
    const headers = { ...appError.headers };
    if (appError.statusCode === 401) headers['www-authenticate'] = 'Basic realm="rampart-taxii", Bearer realm="rampart"';
    const body = appError.body();
    return sendTaxii(reply, appError.statusCode, { title: TITLES[appError.statusCode] ?? 'Error', description: appError.message, http_status: String(appError.statusCode), ...body }, headers);
  };
}

/**
 * TAXII 2.1 (read-only): discovery at /taxii2/, one API root at /taxii2/api/. Authentication
 * by `Authorization: Basic` (any user name, the API key as password) or `Bearer`; `intel.read`,
 * and for an extra collection (a block list) its own permission too (`blocklist.read`).
 */
export function registerTaxiiRoutes(root: FastifyInstance, deps: { taxii: TaxiiService; baseUrl: string; bodyLimit: number }): void {
  void root.register(async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.setErrorHandler(taxiiErrorHandler(deps.bodyLimit));
    app.addHook('preHandler', async (request) => {
      if (!acceptsTaxii21(request.headers.accept)) throw new AppError(406, `The Accept header must be ${TAXII_MEDIA_TYPE}`);
    });
    const tags = ['Intel'];
    const config = { permissions: ['intel.read' as const], basicAuth: true };
    const apiRoot = `${deps.baseUrl.replace(/\/+$/, '')}/taxii2/api/`;
    const taxii = deps.taxii;

    app.get('/taxii2/', {
      config,
      schema: { operationId: 'getTaxiiDiscovery', tags, summary: 'TAXII 2.1 discovery', description: 'Accept: application/taxii+json;version=2.1 (406 otherwise). Basic auth (API key as password) or Bearer.', response: taxiiResponses({ 200: Discovery }) },
    }, async (_req, reply) => sendTaxii(reply, 200, { title: 'Rampart TAXII 2.1', description: 'The intel indicators of this organization as STIX 2.1', default: apiRoot, api_roots: [apiRoot] }));

    app.get('/taxii2/api/', {
      config,
      schema: { operationId: 'getTaxiiApiRoot', tags, summary: 'TAXII 2.1 API root', response: taxiiResponses({ 200: ApiRoot }) },
    }, async (_req, reply) => sendTaxii(reply, 200, { title: 'Rampart intel', description: 'Collections: all indicators, and one per intel source', versions: [TAXII_MEDIA_TYPE], max_content_length: deps.bodyLimit }));

    app.get('/taxii2/api/collections/', {
      config,
      schema: { operationId: 'listTaxiiCollections', tags, summary: 'TAXII 2.1 collections (all indicators, and one per source)', response: taxiiResponses({ 200: Collections }) },
    }, async (req, reply) => sendTaxii(reply, 200, await taxii.collections(actorOf(req).organizationId, actorOf(req).permissions)));

    app.get('/taxii2/api/collections/:collectionId/', {
      config,
      schema: { operationId: 'getTaxiiCollection', tags, summary: 'One TAXII 2.1 collection', params: CollectionParams, response: taxiiResponses({ 200: Collection }, 404) },
    }, async (req, reply) => sendTaxii(reply, 200, await taxii.collection(actorOf(req).organizationId, req.params.collectionId, actorOf(req).permissions)));

    app.get('/taxii2/api/collections/:collectionId/objects/', {
      config,
      schema: {
        operationId: 'listTaxiiObjects',
        tags,
        summary: 'STIX objects of a collection, oldest addition first',
        description: '`added_after` is inclusive (objects added at or after it); follow `next` while `more`. X-TAXII-Date-Added-First/Last give the page\'s range.',
        params: CollectionParams,
        querystring: TaxiiObjectsQuery,
        response: taxiiResponses({ 200: Envelope }, 404),
      },
    }, async (req, reply) => {
      const page = await taxii.objects(actorOf(req).organizationId, req.params.collectionId, req.query, actorOf(req).permissions);
      return sendTaxii(reply, 200, page.body, page.headers);
    });

    app.get('/taxii2/api/collections/:collectionId/manifest/', {
      config,
      schema: { operationId: 'getTaxiiManifest', tags, summary: 'Manifest of a collection (id, date_added, version per object)', params: CollectionParams, querystring: TaxiiObjectsQuery, response: taxiiResponses({ 200: Manifest }, 404) },
    }, async (req, reply) => {
      const page = await taxii.manifest(actorOf(req).organizationId, req.params.collectionId, req.query, actorOf(req).permissions);
      return sendTaxii(reply, 200, page.body, page.headers);
    });

    app.get('/taxii2/api/collections/:collectionId/objects/:objectId/', {
      config,
      schema: { operationId: 'getTaxiiObject', tags, summary: 'One STIX object of a collection', params: ObjectParams, querystring: TaxiiObjectsQuery, response: taxiiResponses({ 200: Envelope }, 404) },
    }, async (req, reply) => {
      const page = await taxii.object(actorOf(req).organizationId, req.params.collectionId, req.params.objectId, req.query, actorOf(req).permissions);
      return sendTaxii(reply, 200, page.body, page.headers);
    });

    app.get('/taxii2/api/collections/:collectionId/objects/:objectId/versions/', {
      config,
      schema: { operationId: 'listTaxiiObjectVersions', tags, summary: 'The versions of one STIX object (this server keeps the latest)', params: ObjectParams, querystring: TaxiiObjectsQuery, response: taxiiResponses({ 200: Versions }, 404) },
    }, async (req, reply) => {
      const page = await taxii.versions(actorOf(req).organizationId, req.params.collectionId, req.params.objectId, req.query, actorOf(req).permissions);
      return sendTaxii(reply, 200, page.body, page.headers);
    });
  });
}
