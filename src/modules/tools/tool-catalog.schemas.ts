import { z } from 'zod';

export const AvailableTool = z.object({
  toolName: z.string().describe('What to put in an agent\'s `toolNames`'),
  kind: z.enum(['builtin', 'mcp']),
  permissions: z.array(z.string()).describe('Permissions the user a run acts for needs to use it (built-in tools; empty for MCP)'),
  mcpServer: z.string().nullable().describe('The MCP server (for `mcp` entries), else null'),
  enabled: z.boolean().describe('false for a disabled MCP server (a run that names its tools ends in error)'),
});

export const AvailableToolList = z.object({ tools: z.array(AvailableTool) }).meta({ id: 'AvailableTools' });
