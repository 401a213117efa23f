import { useTools } from '../api/tools';
import { useSession } from '../session';

/**
 * An agent's tools, picked from GET /api/tools: the built-in tools and each MCP server's tools
 * (`mcp:<server>/*`). Names the agent already has that the list does not show (one MCP tool by
 * name, or any name when the user may not read the list) stay listed, checked, to be unticked.
 */
export function ToolPicker({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  const { can } = useSession();
  const catalog = useTools(can('tool.read'));
  const tools = catalog.data?.tools ?? [];
  const others = value.filter((name) => !tools.some((x) => x.toolName === name));
  const box = (name: string, note?: string) => (
    <label key={name} className="check">
      <input type="checkbox" checked={value.includes(name)} onChange={(e) => onChange(e.target.checked ? [...value, name] : value.filter((x) => x !== name))} />
      <span className="mono">{name}</span>
      {note && <span className="muted small">{note}</span>}
    </label>
  );
  const builtins = tools.filter((x) => x.kind === 'builtin');
  const mcp = tools.filter((x) => x.kind === 'mcp');
  return (
    <fieldset>
      <legend>Tools</legend>
      {catalog.isError && <p className="muted small">The list of tools could not be loaded.</p>}
      {builtins.length > 0 && (
        <fieldset>
          <legend>Built-in</legend>
          {builtins.map((x) => box(x.toolName, x.permissions.length ? `needs ${x.permissions.join(', ')}` : undefined))}
        </fieldset>
      )}
      {mcp.length > 0 && (
        <fieldset>
          <legend>MCP servers (all tools of the server)</legend>
          {mcp.map((x) => box(x.toolName, x.enabled ? undefined : 'server disabled'))}
        </fieldset>
      )}
      {others.length > 0 && (
        <fieldset>
          <legend>Also named by this agent</legend>
          {others.map((name) => box(name))}
        </fieldset>
      )}
    </fieldset>
  );
}
