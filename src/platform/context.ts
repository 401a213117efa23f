import type { FastifyRequest } from 'fastify';
import type { Actor } from './auth/actor.js';
import { actorOf } from './http/request-hooks.js';

/** What a service needs to know about the request it serves: who, and the id for the audit log. */
export interface RequestContext {
  actor: Actor;
  requestId: string;
  /** How the request came: a bearer key (`api`) or the console's session cookie (`console`); recorded with agent versions. */
  via?: 'api' | 'console';
}

export function contextOf(request: FastifyRequest): RequestContext {
  // The request hooks authenticate by session cookie exactly when no Authorization header came.
  return { actor: actorOf(request), requestId: request.id, via: request.headers.authorization === undefined ? 'console' : 'api' };
}
