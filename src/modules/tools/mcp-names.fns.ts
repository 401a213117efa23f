import { createHash } from 'node:crypto';

/** What providers accept as a tool name (OpenAI and Anthropic agree on this). */
export const PROVIDER_TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name a model sees for MCP tool `tool` of server `server`: `mcp__<server>__<tool>`, with
 * characters providers refuse replaced by `_`; a name that would be longer than 64 characters
 * (or was changed by the replacement and so could collide) keeps a readable prefix and ends in
 * a hash of the exact original, so distinct tools always get distinct names.
 */
export function providerSafeMcpName(server: string, tool: string): string {
  const plain = `mcp__${server}__${tool}`;
  if (PROVIDER_TOOL_NAME_RE.test(plain)) return plain;
  const cleaned = plain.replace(/[^a-zA-Z0-9_-]/g, '_');
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${cleaned.slice(0, 64 - hash.length - 1)}_${hash}`;
}
