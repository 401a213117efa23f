import { useState } from 'react';
import { type Schemas } from '../api';
import { useSaveDestination } from '../api/destinations';
import { navigate } from '../router';
import { ErrorText, Select } from '../ui';

type Destination = Schemas['OutputDestination'];
type Write = Schemas['OutputDestinationWriteInput'];
type Type = Destination['type'];
type Config = Record<string, unknown>;

const TYPES: Type[] = ['webhook', 'teams', 'slack', 'pagerduty', 'linear', 'tines'];
/** What the write-only credential is for each type (teams workflow URLs carry their own signature: no token). */
const TOKEN: Record<Type, string | null> = { webhook: 'Token', teams: null, slack: 'Slack bot token', pagerduty: 'PagerDuty routing key', linear: 'Linear API key', tines: 'Tines API key' };

type Field = { key: string; label: string; kind?: 'url' | 'list' | 'select'; options?: string[]; required?: boolean; when?: (c: Config) => boolean };
const apiBase: Field = { key: 'apiBaseUrl', label: 'API base URL (optional)', kind: 'url' };
/** The config fields of each type (docs/delivery.md), as the API's schema has them. */
const FIELDS: Record<Type, Field[]> = {
  webhook: [
    { key: 'url', label: 'URL', kind: 'url', required: true },
    { key: 'authType', label: 'Authentication', kind: 'select', options: ['bearer', 'header'] },
    { key: 'headerName', label: 'Header name', required: true, when: (c) => c.authType === 'header' },
  ],
  teams: [{ key: 'url', label: 'Workflow URL', kind: 'url', required: true }],
  slack: [{ key: 'channelIds', label: 'Channel ids (comma-separated)', kind: 'list', required: true }, apiBase],
  pagerduty: [{ key: 'severity', label: 'Severity', kind: 'select', options: ['critical', 'error', 'warning', 'info'] }, { key: 'source', label: 'Source (optional)' }, apiBase],
  linear: [
    { key: 'teamId', label: 'Team id', required: true },
    { key: 'teamName', label: 'Team name (optional)' },
    { key: 'labelIds', label: 'Label ids (comma-separated, optional)', kind: 'list' },
    { key: 'workflowStateId', label: 'Workflow state id (optional)' },
    apiBase,
  ],
  tines: [
    { key: 'teamId', label: 'Team id (digits)', required: true },
    { key: 'teamName', label: 'Team name (optional)' },
    { key: 'tenantUrl', label: 'Tenant URL', kind: 'url' },
    apiBase,
  ],
};
const DEFAULTS: Partial<Record<Type, Config>> = { webhook: { authType: 'bearer' }, pagerduty: { severity: 'critical' } };

const splitList = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean);

/** The config to send: the type's fields that apply, empty ones dropped; other stored keys (e.g. Slack's revision) kept. */
function configToSend(type: Type, config: Config, texts: Record<string, string>): Config {
  // A user's update clears Slack's blocked channels ("skipped until a user updates the destination").
  const { blockedChannels: _blocked, ...kept } = config;
  const out: Config = { ...kept };
  for (const f of FIELDS[type]) {
    const raw = f.kind === 'list' ? splitList(texts[f.key] ?? '') : (texts[f.key] ?? '').trim();
    if (f.when && !f.when({ ...config, ...texts })) delete out[f.key];
    else if (raw.length === 0) delete out[f.key];
    else out[f.key] = raw;
  }
  return out;
}

const textsOf = (type: Type, config: Config) =>
  Object.fromEntries(FIELDS[type].map((f) => [f.key, Array.isArray(config[f.key]) ? (config[f.key] as string[]).join(', ') : String(config[f.key] ?? DEFAULTS[type]?.[f.key] ?? '')]));

/**
 * Create or edit a destination. The credential is write-only here: the field starts empty even
 * when the API would return the stored one; left empty it is omitted, which keeps the stored
 * token (PUT semantics); "Remove the stored token" sends null.
 */
export function DestinationForm({ destination }: { destination?: Destination }) {
  const [type, setType] = useState<Type>(destination?.type ?? 'webhook');
  const [name, setName] = useState(destination?.name ?? '');
  const stored = (destination?.type === type ? destination.config : {}) as Config;
  const [texts, setTexts] = useState<Record<string, string>>(() => textsOf(type, stored));
  const [token, setToken] = useState('');
  const [clearToken, setClearToken] = useState(false);
  const [events, setEvents] = useState(destination?.eventSubscriptions.join(', ') ?? '');
  const tokenLabel = TOKEN[type];
  const save = useSaveDestination(destination?.id);
  const submit = () => {
    const body = {
      type,
      name,
      config: configToSend(type, stored, texts),
      eventSubscriptions: splitList(events),
      ...(tokenLabel && token ? { token } : tokenLabel && clearToken ? { token: null } : {}),
    } as Write;
    save.mutate(body, {
      onSuccess: (saved) => {
        setToken('');
        setClearToken(false);
        if (!destination) navigate(`/destinations/${saved.id}`);
      },
    });
  };
  const switchType = (t: Type) => { setType(t); setTexts(textsOf(t, destination?.type === t ? (destination.config as Config) : {})); };
  const config = { ...stored, ...texts };
  return (
    <form className="stack" aria-label={destination ? `Edit ${destination.name}` : 'New destination'} onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <div className="inline-form">
        <Select label="Type" value={type} any={null} options={TYPES} onChange={(v) => switchType(v as Type)} />
        <label className="field"><span>Name</span><input value={name} onChange={(e) => setName(e.target.value)} required /></label>
      </div>
      <div className="inline-form">
        {FIELDS[type].filter((f) => !f.when || f.when(config)).map((f) =>
          f.kind === 'select' ? (
            <Select key={f.key} label={f.label} value={texts[f.key] ?? ''} any={null} options={f.options ?? []} onChange={(v) => setTexts({ ...texts, [f.key]: v })} />
          ) : (
            <label key={f.key} className="field">
              <span>{f.label}</span>
              <input type={f.kind === 'url' ? 'url' : 'text'} value={texts[f.key] ?? ''} required={f.required} onChange={(e) => setTexts({ ...texts, [f.key]: e.target.value })} />
            </label>
          ),
        )}
      </div>
      {tokenLabel && (
        <div className="inline-form">
          <label className="field">
            <span>{tokenLabel}{destination?.hasToken ? ' (stored; leave empty to keep it)' : ''}</span>
            <input type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} disabled={clearToken} />
          </label>
          {destination?.hasToken && <label className="check"><input type="checkbox" checked={clearToken} onChange={(e) => setClearToken(e.target.checked)} /> Remove the stored token</label>}
        </div>
      )}
      <label className="field"><span>Event subscriptions (comma-separated, e.g. alert.created)</span><input value={events} onChange={(e) => setEvents(e.target.value)} /></label>
      <div><button type="submit" disabled={save.isPending}>{destination ? 'Save destination' : 'Create destination'}</button></div>
      {save.isSuccess && destination && <p role="status">Saved.</p>}
      <ErrorText error={save.error} />
    </form>
  );
}
