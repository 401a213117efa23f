import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { ErrorBody } from '../../platform/http/error-schemas.js';
import { httpUrl } from '../../platform/http/url-schemas.js';

/**
 * MCP servers: remote Model Context Protocol servers (Streamable HTTP) whose tools agents may
 * use, referenced in an agent's `toolNames` as `mcp:<name>/<tool>` or `mcp:<name>/*`. The
 * bearer token is write-only (encrypted at rest); `hasToken` tells whether one is stored.
 */
export const MCP_SERVER_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const url = httpUrl()
  // Credentials in the URL would be echoed back by every read: they belong in `token`.
  .refine((u) => !/^https?:\/\/[^/?#]*@/i.test(u), { error: 'must not contain credentials; use `token`' })
  .describe('Streamable HTTP endpoint of the server, e.g. `https://mcp.example.com/mcp`');

export const McpServerInput = z
  .strictObject({
    name: z
      .string()
      .regex(MCP_SERVER_NAME_RE, 'must be a slug: lowercase letters, digits, _ and -, starting with a letter or digit, at most 64 characters')
      .describe('Unique in the organization; agents name tools `mcp:<name>/<tool>`'),
    url,
    token: z
      .string()
      .min(1)
      .max(4096)
      .nullable()
      .optional()
      .describe('Bearer token sent as `Authorization: Bearer <token>`. Write-only. On update: omit to keep, null to clear; a `url` on another origin (scheme, host, port) needs it again (400 naming `token`).'),
    enabled: z.boolean().optional().describe('Disabled servers are not used by agent runs. Default true on create; on update, omit to keep.'),
  })
  .meta({ id: 'McpServerWrite' });
export type McpServerInputT = z.infer<typeof McpServerInput>;

export const McpServer = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    url: z.string().describe('Credentials inside it (`?apikey=`…) are `REDACTED` for callers without `tool.manage`'),
    enabled: z.boolean(),
    hasToken: z.boolean().describe('Whether a bearer token is stored (the token itself is never returned)'),
    ...managedFields,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'McpServer' });
export type McpServerDto = z.infer<typeof McpServer>;

export const McpServerList = z.object({ mcpServers: z.array(McpServer) });

export const McpToolInfo = z
  .object({
    name: z.string().describe('The tool\'s name on the server'),
    toolName: z.string().describe('What to put in an agent\'s `toolNames` to use it: `mcp:<server>/<tool>`'),
    title: z.string().optional(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the tool\'s arguments'),
  })
  .meta({ id: 'McpTool' });
export const McpToolList = z.object({ tools: z.array(McpToolInfo) });

export { DeleteResult } from '../../platform/http/responses.js';

export const BadGatewayBody = ErrorBody.describe('The MCP server could not be reached or did not speak MCP; `error` says why');
