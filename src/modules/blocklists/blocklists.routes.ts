import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { actorOf } from '../../platform/http/request-hooks.js';
import { IdParams, LimitOffsetQuery } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { primedStream } from '../intel-out/index.js';
import {
  AllowlistAnswer,
  AllowlistInput,
  AllowlistRule,
  Blocklist,
  BlocklistEntry,
  BlocklistInput,
  BlocklistList,
  BlocklistPatch,
  EntriesQuery,
  EntryInput,
  EntryList,
  EntryParams,
  TxtBody,
  TxtParams,
  TxtQuery,
} from './blocklists.schemas.js';
import type { BlocklistsService } from './blocklists.service.js';

export function registerBlocklistsRoutes(root: FastifyInstance, service: BlocklistsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Block Lists'];
  const read = { permissions: ['blocklist.read' as const] };
  const manage = { permissions: ['blocklist.manage' as const] };

  app.get('/api/blocklists', {
    config: read,
    schema: { operationId: 'listBlocklists', tags, summary: 'List the block lists of the organization', description: 'By name, with each list\'s count of active (unexpired) entries.', querystring: LimitOffsetQuery, response: withErrors({ 200: BlocklistList }) },
  }, async (req) => service.list(contextOf(req), req.query));

  app.post('/api/blocklists', {
    config: manage,
    schema: {
      operationId: 'createBlocklist',
      tags,
      summary: 'Create a block list',
      description: 'Name unique per organization (409 otherwise); the list is served at `/blocklists/{name}.txt` and as the TAXII 2.1 collection of its id. See docs/blocklists.md.',
      body: BlocklistInput,
      response: withErrors({ 201: Blocklist }, 409),
    },
  }, async (req, reply) => reply.code(201).send(await service.create(contextOf(req), req.body)));

  // Its own path: beside `/api/blocklists/{id}/…` an `allowlist/{id}` would be ambiguous to clients.
  app.get('/api/blocklist-allowlist', {
    config: read,
    schema: {
      operationId: 'getBlocklistAllowlist',
      tags,
      summary: 'The allow list: values never blocked',
      description: 'The built-in rules (RFC 1918 and other private, loopback, link-local, multicast ranges; `localhost`), which cannot be removed, then the organization\'s own domains and ranges. Adding an entry that shares an address with a range, or a domain equal to, under or above an allowed domain, is 422.',
      response: withErrors({ 200: AllowlistAnswer }),
    },
  }, async (req) => service.allowlist(contextOf(req)));

  app.post('/api/blocklist-allowlist', {
    config: manage,
    schema: {
      operationId: 'addBlocklistAllowRule',
      tags,
      summary: 'Protect a domain or address range from every block list',
      description: 'Entries already on a list that the new rule covers stay until removed or expired: the rule refuses additions. 409 when the rule exists.',
      body: AllowlistInput,
      response: withErrors({ 201: AllowlistRule }, 409),
    },
  }, async (req, reply) => reply.code(201).send(await service.addAllowRule(contextOf(req), req.body)));

  app.delete('/api/blocklist-allowlist/:id', {
    config: manage,
    schema: { operationId: 'deleteBlocklistAllowRule', tags, summary: 'Remove a rule of the organization\'s allow list', params: IdParams, response: withErrors({ 200: DeleteResult }, 404) },
  }, async (req) => service.removeAllowRule(contextOf(req), req.params.id));

  app.get('/api/blocklists/:id', {
    config: read,
    schema: { operationId: 'getBlocklist', tags, summary: 'Get one block list', params: IdParams, response: withErrors({ 200: Blocklist }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.id));

  app.patch('/api/blocklists/:id', {
    config: manage,
    schema: {
      operationId: 'updateBlocklist',
      tags,
      summary: 'Change a block list',
      description: 'Renaming moves its external list to the new `/blocklists/{name}.txt` (the old URL answers 404). 409 when the name is taken.',
      params: IdParams,
      body: BlocklistPatch,
      response: withErrors({ 200: Blocklist }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body));

  app.delete('/api/blocklists/:id', {
    config: manage,
    schema: { operationId: 'deleteBlocklist', tags, summary: 'Delete a block list and its entries', params: IdParams, response: withErrors({ 200: DeleteResult }, 404) },
  }, async (req) => service.remove(contextOf(req), req.params.id));

  app.get('/api/blocklists/:id/entries', {
    config: read,
    schema: {
      operationId: 'listBlocklistEntries',
      tags,
      summary: 'The entries of a block list, oldest first',
      description: 'Active entries only unless `includeExpired=true` (expired entries stay readable for an hour, then the cleanup pass deletes them).',
      params: IdParams,
      querystring: EntriesQuery,
      response: withErrors({ 200: EntryList }, 404),
    },
  }, async (req) => service.entries(contextOf(req), req.params.id, req.query));

  app.post('/api/blocklists/:id/entries', {
    config: manage,
    schema: {
      operationId: 'addBlocklistEntry',
      tags,
      summary: 'Block a value',
      description:
        'The value is normalized (refanged, hosts lower-cased, networks masked). 201 for a new entry; 200 when the list already held the value: its reason, expiry and author are replaced (blocking again extends a block). ' +
        '400 for a type the list does not hold, a value that is not of the type, an expiry in the past; 422 `{error, code: "allowlisted", allowRule}` for a value the allow list protects.',
      params: IdParams,
      body: EntryInput,
      response: withErrors({ 200: BlocklistEntry, 201: BlocklistEntry }, 404, 422),
    },
  }, async (req, reply) => {
    const { entry, created } = await service.addEntry(contextOf(req), req.params.id, req.body);
    return reply.code(created ? 201 : 200).send(entry);
  });

  app.delete('/api/blocklists/:id/entries/:entryId', {
    config: manage,
    schema: { operationId: 'deleteBlocklistEntry', tags, summary: 'Unblock: remove an entry', params: EntryParams, response: withErrors({ 200: DeleteResult }, 404) },
  }, async (req) => service.removeEntry(contextOf(req), req.params.id, req.params.entryId));

  app.get('/blocklists/:name.txt', {
    // Basic too, as intel out's lists: firewalls fetching external lists (PAN-OS EDL, FortiGate) send only a user name and password.
    config: { ...read, basicAuth: true },
    schema: {
      operationId: 'getBlocklistText',
      tags,
      summary: 'A block list as an external list (PAN-OS EDL, FortiGate threat feed)',
      description:
        'text/plain, one active value per line, oldest first: addresses and CIDR networks, domains, URLs without their scheme, hashes. Expired entries are left out at read time. ' +
        '`type=ip|domain|url|hash` serves one kind (an EDL object holds one type). Authentication: `Authorization: Basic` with any user name and the API key as password, or Bearer.',
      params: TxtParams,
      querystring: TxtQuery,
      response: withErrors({ 200: TxtBody }, 404),
    },
  }, async (req, reply) => {
    const lines = await service.txt(actorOf(req).organizationId, req.params.name, req.query.type);
    return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(await primedStream(lines));
  });
}
