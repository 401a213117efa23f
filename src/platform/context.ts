import type { FastifyRequest } from 'fastify';
import type { Actor } from './auth/actor.js';
import { actorOf } from './http/request-hooks.js';

/** What a service needs to know about the request it serves: who, and the id for the audit log. */
export interface RequestContext {
  actor: Actor;
  requestId: string;
}

export function contextOf(request: FastifyRequest): RequestContext {
  return { actor: actorOf(request), requestId: request.id };
}
