import { z } from 'zod';
import { TOOL_POLICIES } from './tool-policy.fns.js';

export const AvailableTool = z.object({
  toolName: z.string().describe('What to put in an agent\'s `toolNames`'),
  kind: z.enum(['builtin', 'mcp']),
  permissions: z.array(z.string()).describe('Permissions the user a run acts for needs to use it (built-in tools; empty for MCP)'),
  mcpServer: z.string().nullable().describe('The MCP server (for `mcp` entries), else null'),
  enabled: z.boolean().describe('false for a disabled MCP server (a run that names its tools ends in error)'),
  defaultPolicy: z
    .enum(TOOL_POLICIES)
    .nullable()
    .describe(
      "The policy of a call when the agent's `toolPolicies` set none (docs/approvals.md#tool-policies). null when it depends on the call: `http_request` is `allow` for GET and HEAD and `approve` for any other method; an MCP server's tools are `allow` when the server annotates them `readOnlyHint: true`, else `approve`",
    ),
});

export const AvailableToolList = z.object({ tools: z.array(AvailableTool) }).meta({ id: 'AvailableTools' });
