import type { AgentInputSpecT } from './agents.schemas.js';

export interface InputProblem {
  name: string;
  code: 'required' | 'invalid_type';
  /** Completes "input <name> …". */
  message: string;
}

const jsonType = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/**
 * The agent's declared inputs a run input lacks (required ones) or carries with another JSON
 * type. Checked before a direct run is queued (400) and before any run starts (a triggered run
 * whose payload lacks them ends in `error` instead of running blind).
 */
export function inputProblems(specs: readonly AgentInputSpecT[], input: unknown): InputProblem[] {
  if (!specs.length) return [];
  const given = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  const problems: InputProblem[] = [];
  for (const spec of specs) {
    const value = given?.[spec.name];
    if (value === undefined) {
      if (spec.required) problems.push({ name: spec.name, code: 'required', message: 'is required by this agent' });
    } else if (jsonType(value) !== spec.type) {
      problems.push({ name: spec.name, code: 'invalid_type', message: `must be of type ${spec.type}` });
    }
  }
  return problems;
}
