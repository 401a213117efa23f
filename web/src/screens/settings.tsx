import { useEffect, useState } from 'react';
import { type Paths, type Query } from '../api';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';
import { useAuditFacets, useAuditLogs } from '../api/audit-logs';
import { useChangeRolePermissions, useRoles } from '../api/roles';
import { useCreateUser, useUsers } from '../api/users';
import { useSearch } from '../router';
import { useSession } from '../session';
import IdentityProviders from './identity-providers';
import { Badge, CopyButton, ErrorText, Loadable, Page, Pager, Select, Tabs, Time, pageOf, DataTable } from '../ui';

const TABS: Array<[string, string]> = [['/settings/users', 'Users'], ['/settings/roles', 'Roles'], ['/settings/api-keys', 'API keys'], ['/settings/identity-providers', 'Identity providers'], ['/settings/audit', 'Audit log']];

export default function Settings({ params }: { params: Record<string, string> }) {
  const tab = params.tab;
  return (
    <Page title="Settings">
      <Tabs items={TABS} />
      {tab === 'roles' ? <Roles /> : tab === 'api-keys' ? <ApiKeys /> : tab === 'identity-providers' ? <IdentityProviders /> : tab === 'audit' ? <Audit /> : <Users />}
    </Page>
  );
}

function Users() {
  const [search] = useSearch();
  const page = pageOf(search);
  const { can } = useSession();
  const users = useUsers({ limit: 50, offset: (page - 1) * 50 });
  return (
    <>
      {can('setting.users.manage') && <NewUser />}
      <Loadable query={users} isEmpty={(d) => d.users.length === 0} empty="No users.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">User</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Since</th></>}>
              {d.users.map((u) => (
                <tr key={u.id}><td>{u.name}</td><td>{u.email}</td><td>{u.roleName}</td><td><Badge value={u.deactivated ? 'deactivated' : 'active'} /></td><td><Time at={u.createdAt} /></td></tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </>
  );
}

function NewUser() {
  const roles = useRoles();
  const [form, setForm] = useState({ email: '', name: '', roleId: '' });
  const create = useCreateUser();
  return (
    <form className="inline-form" onSubmit={(e) => { e.preventDefault(); create.mutate(form, { onSuccess: () => setForm({ email: '', name: '', roleId: '' }) }); }} aria-label="New user">
      <label className="field"><span>Email</span><input type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} required /></label>
      <label className="field"><span>Name</span><input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required /></label>
      <Select label="Role" value={form.roleId} any="Choose a role" options={(roles.data?.roles ?? []).map((r) => [r.id, r.name] as [string, string])} onChange={(v) => setForm({ ...form, roleId: v })} />
      <button type="submit" disabled={create.isPending || !form.roleId}>Add user</button>
      <ErrorText error={create.error} />
    </form>
  );
}

function Roles() {
  const roles = useRoles();
  const { can } = useSession();
  return (
    <Loadable query={roles} isEmpty={(d) => d.roles.length === 0} empty="No roles.">
      {(d) => (
        <ul className="cards">
          {d.roles.map((r) => (
            <li key={r.id} className="card">
              <strong>{r.name}</strong> {r.isSystem && <Badge value="system" />}
              {r.description && <p className="muted">{r.description}</p>}
              {can('setting.perms.manage') && !r.isSystem ? <Permissions roleId={r.id} name={r.name} granted={r.permissions} /> : (
                <p className="small">{r.permissions.length ? r.permissions.join(' · ') : 'No permissions'}</p>
              )}
            </li>
          ))}
        </ul>
      )}
    </Loadable>
  );
}

type Permission = NonNullable<NonNullable<Paths['/api/roles/{id}/perms']['post']['requestBody']>['content']['application/json']['toAdd']>[number];
const PERMISSIONS: Permission[] = [
  'agent.read', 'agent.create', 'agent.manage', 'agent.execute', 'tool.read', 'tool.use', 'tool.manage', 'alert.read', 'alert.triage', 'alert.manage',
  'destination.read', 'destination.manage', 'intel.read', 'intel.manage', 'hunt.read', 'hunt.manage', 'blocklist.read', 'blocklist.manage', 'audit.read', 'setting.perms.manage', 'setting.apiKey.manage', 'setting.users.manage', 'setting.identityProviders.manage',
];

/** A custom role's permissions, one checkbox each; a change is saved at once. */
function Permissions({ roleId, name, granted }: { roleId: string; name: string; granted: string[] }) {
  // Shown as changed at once; the server's answer (or a refused change) resets it.
  const [checked, setChecked] = useState(() => new Set(granted));
  useEffect(() => setChecked(new Set(granted)), [granted.join()]);
  const change = useChangeRolePermissions(roleId);
  const toggle = (permission: Permission, on: boolean) => {
    setChecked((c) => { const n = new Set(c); if (on) n.add(permission); else n.delete(permission); return n; });
    change.mutate(on ? { toAdd: [permission] } : { toRemove: [permission] });
  };
  return (
    <fieldset>
      <legend>Permissions of {name}</legend>
      {PERMISSIONS.map((p) => (
        <label key={p} className="check">
          <input type="checkbox" checked={checked.has(p)} onChange={(e) => toggle(p, e.target.checked)} /> {p}
        </label>
      ))}
      <ErrorText error={change.error} />
    </fieldset>
  );
}

function ApiKeys() {
  const { can } = useSession();
  const [search] = useSearch();
  const page = pageOf(search);
  const keys = useApiKeys({ limit: 50, offset: (page - 1) * 50, includeRevoked: 'true' }, { enabled: can('setting.apiKey.manage') });
  const [name, setName] = useState('');
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  if (!can('setting.apiKey.manage')) return <p className="state">Your role cannot manage API keys (setting.apiKey.manage).</p>;
  return (
    <>
      <form className="inline-form" onSubmit={(e) => { e.preventDefault(); create.mutate(name, { onSuccess: () => setName('') }); }} aria-label="New API key">
        <label className="field"><span>Key name</span><input value={name} onChange={(e) => setName(e.target.value)} required /></label>
        <button type="submit" disabled={create.isPending}>Create key</button>
      </form>
      <ErrorText error={create.error ?? revoke.error} />
      {create.data && (
        <div className="notice" role="status">
          <p>Copy the key now: it is shown this once and cannot be read again.</p>
          <div className="copy-row"><code className="break">{create.data.key}</code> <CopyButton value={create.data.key} label="API key" /></div>
        </div>
      )}
      <Loadable query={keys} isEmpty={(d) => d.apiKeys.length === 0} empty="No API keys.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span className="sr-only">Actions</span></th></>}>
              {d.apiKeys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td><td className="mono">rmp_{k.prefix}_…</td><td><Time at={k.lastUsedAt} /></td><td><Time at={k.expiresAt} /></td>
                  <td><Badge value={k.revokedAt ? 'revoked' : 'active'} /></td>
                  <td>{!k.revokedAt && <button type="button" onClick={() => revoke.mutate(k.id)} aria-label={`Revoke ${k.name}`}>Revoke</button>}</td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </>
  );
}

function Audit() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const { can } = useSession();
  const filters = Object.fromEntries((['action', 'resourceType', 'resourceId', 'actorUserId'] as const).flatMap((k) => (search.get(k) ? [[k, search.get(k)!]] : [])));
  const query = { limit: 50, offset: (page - 1) * 50, ...filters } as Query<'/api/audit-logs'>;
  const logs = useAuditLogs(query, can('audit.read'));
  const facets = useAuditFacets(can('audit.read'));
  if (!can('audit.read')) return <p className="state">Your role cannot read the audit log (audit.read).</p>;
  return (
    <>
      <div className="filters">
        <Select label="Actor" value={search.get('actorUserId') ?? ''} options={(facets.data?.actors ?? []).map((a) => [a.userId, a.name] as [string, string])} onChange={(v) => set({ actorUserId: v })} />
        <Select label="Action" value={search.get('action') ?? ''} options={facets.data?.actions ?? []} onChange={(v) => set({ action: v })} />
        <Select label="Resource type" value={search.get('resourceType') ?? ''} options={facets.data?.resourceTypes ?? []} onChange={(v) => set({ resourceType: v, resourceId: null })} />
        {search.get('resourceId') && <button type="button" onClick={() => set({ resourceId: null })}>Any resource (was {search.get('resourceId')})</button>}
      </div>
      <Loadable query={logs} isEmpty={(d) => d.auditLogs.length === 0} empty="No audit entries match.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">When</th><th scope="col">Action</th><th scope="col">Resource</th><th scope="col">Actor</th><th scope="col">Request</th></>}>
              {d.auditLogs.map((l) => (
                <tr key={l.id}>
                  <td><Time at={l.createdAt} /></td>
                  <td className="mono">{l.action}</td>
                  <td>
                    <span className="muted">{l.resourceType}</span>{' '}
                    {l.resourceId ? <button type="button" className="link" title={l.resourceId} onClick={() => set({ resourceType: l.resourceType, resourceId: l.resourceId })}>{l.resourceName ?? l.resourceId}</button> : l.resourceName}
                  </td>
                  <td>{l.actorType === 'system' ? 'Operator (CLI)' : l.actorName ?? <span className="muted">deleted user</span>}</td>
                  <td className="mono small">{l.requestId}</td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </>
  );
}
