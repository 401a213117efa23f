import { useState, type FormEvent } from 'react';
import { type Paths, type Schemas } from '../api';
import { useSetApiKeySignIn, useSignInSettings } from '../api/console-sign-in-settings';
import { useDeleteIdentityProvider, useIdentityProviders, useIssueScimToken, useSaveIdentityProvider } from '../api/identity-providers';
import { useRoles } from '../api/roles';
import { useSession } from '../session';
import { CopyButton, ErrorText, Loadable, Select } from '../ui';

/**
 * Settings → Identity providers: the organization's OpenID Connect providers (console sign-in,
 * roles from groups, SCIM deprovisioning) and its console sign-in policy. The client secret is
 * write-only (never shown, left empty on edit it is kept); a SCIM token is shown once.
 */
type Provider = Schemas['IdentityProvider'];
type CreateBody = NonNullable<Paths['/api/identity-providers']['post']['requestBody']>['content']['application/json'];
type Mapping = { group: string; roleId: string };
interface Form {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  groupsClaim: string;
  allowedEmailDomains: string;
  roleMappings: Mapping[];
  defaultRoleId: string;
}

const EMPTY: Form = { name: '', issuer: '', clientId: '', clientSecret: '', scopes: 'openid email profile groups', groupsClaim: 'groups', allowedEmailDomains: '', roleMappings: [], defaultRoleId: '' };
const words = (v: string) => v.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);
const formOf = (p: Provider): Form => ({
  name: p.name,
  issuer: p.issuer,
  clientId: p.clientId,
  clientSecret: '',
  scopes: p.scopes.join(' '),
  groupsClaim: p.groupsClaim,
  allowedEmailDomains: p.allowedEmailDomains.join(', '),
  roleMappings: p.roleMappings.map((m) => ({ ...m })),
  defaultRoleId: p.defaultRoleId ?? '',
});

function bodyOf(form: Form): CreateBody {
  return {
    name: form.name.trim(),
    issuer: form.issuer.trim(),
    clientId: form.clientId.trim(),
    clientSecret: form.clientSecret,
    scopes: words(form.scopes),
    groupsClaim: form.groupsClaim.trim() || 'groups',
    allowedEmailDomains: words(form.allowedEmailDomains),
    roleMappings: form.roleMappings.filter((m) => m.group.trim() && m.roleId).map((m) => ({ group: m.group.trim(), roleId: m.roleId })),
    defaultRoleId: form.defaultRoleId || null,
  };
}

export default function IdentityProviders() {
  const { can } = useSession();
  const providers = useIdentityProviders(can('setting.identityProviders.manage'));
  const [editing, setEditing] = useState<string | null>(null);
  if (!can('setting.identityProviders.manage')) return <p className="state">Your role cannot manage identity providers (setting.identityProviders.manage).</p>;
  return (
    <>
      <SignInPolicy />
      <Loadable query={providers} isEmpty={(d) => d.identityProviders.length === 0} empty="No identity provider yet: add one below to let people sign in with it.">
        {(d) => (
          <ul className="cards" aria-label="Identity providers">
            {d.identityProviders.map((p) => (
              <li key={p.id} className="card" aria-label={p.name}>
                {editing === p.id ? <ProviderForm provider={p} onDone={() => setEditing(null)} /> : <ProviderCard provider={p} onEdit={() => setEditing(p.id)} />}
              </li>
            ))}
          </ul>
        )}
      </Loadable>
      <section className="card" aria-labelledby="new-idp-title">
        <h2 id="new-idp-title">Add an identity provider</h2>
        <ProviderForm />
      </section>
    </>
  );
}

/** Where people sign in (the organization's sign-in address) and whether API keys may open a console session. */
function SignInPolicy() {
  const { session } = useSession();
  const settings = useSignInSettings();
  const change = useSetApiKeySignIn();
  const address = `${location.origin}/sign-in?organization=${session?.organizationId ?? ''}`;
  return (
    <section className="card" aria-labelledby="sign-in-policy-title">
      <h2 id="sign-in-policy-title">Console sign-in</h2>
      <p className="small">Your organization's sign-in address (it shows the buttons of the providers below):</p>
      <div className="copy-row"><code className="break">{address}</code> <CopyButton value={address} label="sign-in address" /></div>
      <Loadable query={settings}>
        {(s) => (
          <label className="check">
            <input type="checkbox" checked={s.apiKeySignIn} disabled={change.isPending} onChange={(e) => change.mutate(e.target.checked)} />
            Allow signing in to the console with an API key
          </label>
        )}
      </Loadable>
      <p className="hint">Turned off, people sign in through an identity provider (an operator can still print a one-time link with <code>rampart admin login-link</code>), and console sessions opened with a key end. API keys keep working for the API.</p>
      <ErrorText error={change.error} />
    </section>
  );
}

function ProviderCard({ provider: p, onEdit }: { provider: Provider; onEdit: () => void }) {
  const roles = useRoles();
  const [confirming, setConfirming] = useState(false);
  const roleName = (id: string | null) => (id ? (roles.data?.roles.find((r) => r.id === id)?.name ?? id) : null);
  const remove = useDeleteIdentityProvider(p.id);
  const token = useIssueScimToken(p.id);
  return (
    <>
      <h2>{p.name}</h2>
      <dl className="facts">
        <dt>Issuer</dt><dd className="mono break">{p.issuer}</dd>
        <dt>Client id</dt><dd className="mono break">{p.clientId}</dd>
        <dt>Redirect URI (register it at the provider)</dt><dd><span className="mono break">{p.redirectUri}</span> <CopyButton value={p.redirectUri} label={`redirect URI of ${p.name}`} /></dd>
        <dt>Scopes</dt><dd className="mono">{p.scopes.join(' ')}</dd>
        <dt>Groups claim</dt><dd className="mono">{p.groupsClaim}</dd>
        <dt>Allowed email domains</dt><dd>{p.allowedEmailDomains.length ? p.allowedEmailDomains.join(', ') : 'any the provider vouches for'}</dd>
        <dt>Role mappings</dt>
        <dd>
          {p.roleMappings.length ? (
            <ol className="small">{p.roleMappings.map((m, i) => <li key={i}><span className="mono">{m.group}</span> → {roleName(m.roleId)}</li>)}</ol>
          ) : 'none'}
        </dd>
        <dt>People in no mapped group</dt><dd>{p.defaultRoleId ? `get ${roleName(p.defaultRoleId)}` : 'are refused'}</dd>
        <dt>SCIM</dt><dd><span className="mono break">{p.scimBaseUrl}</span> · {p.hasScimToken ? 'token issued' : 'no token yet'}</dd>
      </dl>
      <div className="inline-form">
        <button type="button" onClick={onEdit}>Edit</button>
        <button type="button" onClick={() => token.mutate()} disabled={token.isPending}>{p.hasScimToken ? 'Replace SCIM token' : 'Generate SCIM token'}</button>
        {confirming ? (
          <>
            <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>Delete {p.name} for good</button>
            <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>Delete</button>
        )}
      </div>
      {confirming && <p className="hint">Nobody can sign in through {p.name} afterwards and its SCIM token stops working; its users stay, with their role and API keys.</p>}
      {token.data && (
        <div className="notice" role="status">
          <p>Copy the SCIM token now: it is shown this once (a new one replaces it).</p>
          <div className="copy-row"><code className="break">{token.data.token}</code> <CopyButton value={token.data.token} label="SCIM token" /></div>
        </div>
      )}
      <ErrorText error={remove.error ?? token.error} />
    </>
  );
}

/** Create (no provider) or edit a provider; the role mappings are ordered: the first group a person is in decides. */
function ProviderForm({ provider, onDone }: { provider?: Provider; onDone?: () => void }) {
  const roles = useRoles();
  const [form, setForm] = useState<Form>(provider ? formOf(provider) : EMPTY);
  const roleOptions = (roles.data?.roles ?? []).map((r) => [r.id, r.name] as [string, string]);
  const save = useSaveIdentityProvider(provider?.id);
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const setMapping = (i: number, patch: Partial<Mapping>) => set({ roleMappings: form.roleMappings.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(bodyOf(form), {
      onSuccess: () => {
        if (!provider) setForm(EMPTY);
        onDone?.();
      },
    });
  };
  const title = provider ? `Edit ${provider.name}` : 'New identity provider';
  return (
    <form onSubmit={submit} aria-label={title} className="stack">
      <div className="inline-form">
        <label className="field"><span>Name</span><input value={form.name} onChange={(e) => set({ name: e.target.value })} required placeholder="Okta" /></label>
        <label className="field"><span>Issuer</span><input type="url" value={form.issuer} onChange={(e) => set({ issuer: e.target.value })} required placeholder="https://acme.okta.com" /></label>
      </div>
      <div className="inline-form">
        <label className="field"><span>Client id</span><input value={form.clientId} onChange={(e) => set({ clientId: e.target.value })} required /></label>
        <label className="field">
          <span>Client secret</span>
          <input type="password" autoComplete="off" value={form.clientSecret} onChange={(e) => set({ clientSecret: e.target.value })} required={!provider} placeholder={provider ? 'unchanged (write-only)' : ''} />
        </label>
      </div>
      <div className="inline-form">
        <label className="field"><span>Scopes</span><input value={form.scopes} onChange={(e) => set({ scopes: e.target.value })} /></label>
        <label className="field"><span>Groups claim</span><input value={form.groupsClaim} onChange={(e) => set({ groupsClaim: e.target.value })} /></label>
        <label className="field"><span>Allowed email domains</span><input value={form.allowedEmailDomains} onChange={(e) => set({ allowedEmailDomains: e.target.value })} placeholder="acme.com, acme.de" /></label>
      </div>
      <fieldset>
        <legend>Role mappings (first matching group wins)</legend>
        {form.roleMappings.map((m, i) => (
          <div key={i} className="inline-form" role="group" aria-label={`Mapping ${i + 1}`}>
            <label className="field"><span>Group</span><input value={m.group} onChange={(e) => setMapping(i, { group: e.target.value })} required /></label>
            <Select label="Role" value={m.roleId} any="Choose a role" options={roleOptions} onChange={(v) => setMapping(i, { roleId: v })} />
            <button type="button" onClick={() => set({ roleMappings: form.roleMappings.filter((_, j) => j !== i) })} aria-label={`Remove mapping ${i + 1}`}>Remove</button>
          </div>
        ))}
        <button type="button" onClick={() => set({ roleMappings: [...form.roleMappings, { group: '', roleId: '' }] })}>Add mapping</button>
      </fieldset>
      <Select label="People in no mapped group" value={form.defaultRoleId} any="Refuse them" options={roleOptions.map(([id, name]) => [id, `Give them ${name}`] as [string, string])} onChange={(v) => set({ defaultRoleId: v })} />
      <div className="inline-form">
        <button type="submit" disabled={save.isPending}>{provider ? 'Save changes' : 'Add identity provider'}</button>
        {provider && <button type="button" onClick={onDone}>Cancel</button>}
      </div>
      <ErrorText error={save.error} />
    </form>
  );
}
