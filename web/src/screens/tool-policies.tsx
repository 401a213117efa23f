import { useState } from 'react';
import { type Paths } from '../api';
import { useRoles } from '../api/roles';
import { useTools } from '../api/tools';
import { useUsers } from '../api/users';
import { useSession } from '../session';
import { Select } from '../ui';

/**
 * The agent form's person-in-the-loop part (docs/approvals.md): a policy per tool the agent lists
 * (`toolPolicies`: allow, approve, deny, or the tool's own default) and its `approvalSettings`
 * (how long a request waits, who may decide, a second person).
 */
type Agent = Paths['/api/agents/{agentId}']['get']['responses'][200]['content']['application/json'];
export type ToolPolicies = Agent['toolPolicies'];
export type ApprovalSettings = Agent['approvalSettings'];
type Policy = ToolPolicies[string];

export const DEFAULT_APPROVAL_SETTINGS: ApprovalSettings = { expiresAfterSeconds: 3600, approverRoleIds: [], approverUserIds: [], requireSecondPerson: false };
const POLICIES: Array<[Policy, string]> = [['allow', 'allow: runs at once'], ['approve', 'approve: waits for a person'], ['deny', 'deny: refused']];

const serverOf = (name: string) => /^mcp:([^/]+)\//.exec(name)?.[1] ?? null;

/**
 * Policies the API would refuse once `toolNames` changed: a policy must name a listed tool, or a
 * tool of a server the agent lists as `mcp:<server>/*`.
 */
export function prunePolicies(policies: ToolPolicies, toolNames: readonly string[]): ToolPolicies {
  const listed = new Set(toolNames);
  return Object.fromEntries(Object.entries(policies).filter(([name]) => listed.has(name) || (serverOf(name) !== null && listed.has(`mcp:${serverOf(name)}/*`))));
}

/** What a tool does when the agent sets no policy for it, in words. */
function defaultOf(name: string, declared: Policy | null | undefined): string {
  if (name === 'http_request') return 'allow for GET and HEAD, approve for other methods';
  if (name.startsWith('mcp:')) return name.endsWith('/*') ? 'allow for tools the server marks read-only, approve for the others' : 'allow if the server marks it read-only, else approve';
  return declared ?? 'allow';
}

export function ToolPoliciesEditor({ toolNames, value, onChange }: { toolNames: string[]; value: ToolPolicies; onChange: (v: ToolPolicies) => void }) {
  const { can } = useSession();
  const catalog = useTools(can('tool.read'));
  const declared = new Map((catalog.data?.tools ?? []).map((t) => [t.toolName, t.defaultPolicy]));
  const servers = toolNames.filter((n) => n.startsWith('mcp:') && n.endsWith('/*'));
  // One MCP tool by name under a server's wildcard: its own row, so it can differ from the server's.
  const named = [...toolNames, ...Object.keys(value).filter((n) => !toolNames.includes(n))];
  const set = (name: string, policy: string) => {
    const { [name]: _old, ...rest } = value;
    onChange(policy ? { ...rest, [name]: policy as Policy } : rest);
  };
  return (
    <fieldset>
      <legend>Tool policies</legend>
      {named.length === 0 && <p className="muted small">No tools: pick some above.</p>}
      {named.map((name) => (
        <div key={name} className="inline-form policy-row">
          <Select
            label={name}
            value={value[name] ?? ''}
            any={`default: ${defaultOf(name, declared.get(name))}`}
            options={POLICIES}
            onChange={(v) => set(name, v)}
          />
        </div>
      ))}
      {servers.length > 0 && <OneMcpTool servers={servers} taken={named} onAdd={(name) => set(name, 'approve')} />}
      <p className="muted small">A call that waits for approval pauses its run until a person decides in Approvals, the API or Slack.</p>
    </fieldset>
  );
}

/** Adds a policy for one tool of a server the agent lists whole (`mcp:edr/isolate_host` under `mcp:edr/*`). */
function OneMcpTool({ servers, taken, onAdd }: { servers: string[]; taken: string[]; onAdd: (name: string) => void }) {
  const [server, setServer] = useState(servers[0]!);
  const [tool, setTool] = useState('');
  const chosen = servers.includes(server) ? server : servers[0]!;
  const name = `${chosen.slice(0, -1)}${tool.trim()}`;
  const ok = /^[A-Za-z0-9_.-]{1,128}$/.test(tool.trim()) && !taken.includes(name);
  return (
    <div className="inline-form" role="group" aria-label="Policy for one MCP tool">
      <Select label="Server" value={chosen} any={null} options={servers.map((s) => [s, s.slice(4, -2)] as [string, string])} onChange={setServer} />
      <label className="field"><span>Tool name</span><input value={tool} onChange={(e) => setTool(e.target.value)} placeholder="isolate_host" /></label>
      <button type="button" disabled={!ok} onClick={() => { onAdd(name); setTool(''); }}>Add a policy for this tool</button>
    </div>
  );
}

/** Expiry, approvers (roles or users; none: anyone with approval.decide) and requireSecondPerson. */
export function ApprovalSettingsEditor({ value, onChange }: { value: ApprovalSettings; onChange: (v: ApprovalSettings) => void }) {
  const { can } = useSession();
  const roles = useRoles();
  const users = useUsers({ limit: 100 }, { enabled: can('setting.users.manage') });
  const toggle = (list: string[], id: string, on: boolean) => (on ? [...list, id] : list.filter((x) => x !== id));
  const knownUsers = users.data?.users ?? [];
  const otherUsers = value.approverUserIds.filter((id) => !knownUsers.some((u) => u.id === id));
  return (
    <fieldset>
      <legend>Approvals</legend>
      <label className="field"><span>A request waits (minutes, 1–10080), then counts as denied (expired)</span>
        <input type="number" min={1} max={10080} value={Math.round(value.expiresAfterSeconds / 60)} onChange={(e) => onChange({ ...value, expiresAfterSeconds: Math.round(Number(e.target.value) * 60) })} required />
      </label>
      <fieldset>
        <legend>Who may decide</legend>
        <p className="muted small">Nobody ticked: anyone whose role holds approval.decide. Otherwise only users with a ticked role, or ticked users.</p>
        {(roles.data?.roles ?? []).map((r) => (
          <label key={r.id} className="check"><input type="checkbox" checked={value.approverRoleIds.includes(r.id)} onChange={(e) => onChange({ ...value, approverRoleIds: toggle(value.approverRoleIds, r.id, e.target.checked) })} /> Role {r.name}</label>
        ))}
        {knownUsers.map((u) => (
          <label key={u.id} className="check"><input type="checkbox" checked={value.approverUserIds.includes(u.id)} onChange={(e) => onChange({ ...value, approverUserIds: toggle(value.approverUserIds, u.id, e.target.checked) })} /> {u.name || u.email}</label>
        ))}
        {otherUsers.map((id) => (
          <label key={id} className="check"><input type="checkbox" checked onChange={() => onChange({ ...value, approverUserIds: value.approverUserIds.filter((x) => x !== id) })} /> User <span className="mono">{id}</span></label>
        ))}
      </fieldset>
      <label className="check"><input type="checkbox" checked={value.requireSecondPerson} onChange={(e) => onChange({ ...value, requireSecondPerson: e.target.checked })} /> Require a second person: whoever last changed this agent may not decide its requests</label>
    </fieldset>
  );
}
