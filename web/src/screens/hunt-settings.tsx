import { useEffect, useState } from 'react';
import { type Paths } from '../api';
import { useHuntAlertSettings, useSaveHuntAlertSettings } from '../api/hunt-settings';
import { useSession } from '../session';
import { ErrorText, Loadable, Select } from '../ui';

type AlertSettings = Paths['/api/hunt/alert-creation-settings']['get']['responses'][200]['content']['application/json'];

const BANDS: Array<[string, string]> = [['low', 'low (exposure ≥ 1)'], ['medium', 'medium (≥ 40)'], ['high', 'high (≥ 60)'], ['critical', 'critical (≥ 80)']];

/** A 0..1 API value as the percent the form shows; '' for no gate. */
const percent = (v: number | null) => (v === null ? '' : String(Math.round(v * 10000) / 100));
const fraction = (s: string) => (s.trim() === '' ? null : Number(s) / 100);

/**
 * When the hunt raises an alert (GET/PUT /api/hunt/alert-creation-settings): the exposure band,
 * the compromise-signal override, the EPSS gates and the CISA KEV switch. Read-only without
 * hunt.manage.
 */
export function HuntAlertSettings() {
  const { can } = useSession();
  const settings = useHuntAlertSettings();
  const [form, setForm] = useState<{ band: string; compromise: boolean; kev: boolean; epss: string; percentile: string } | null>(null);
  useEffect(() => {
    if (settings.data && !form) setForm(formOf(settings.data));
  }, [settings.data]);
  const save = useSaveHuntAlertSettings();
  const submit = () =>
    save.mutate(
      {
        minimumExposureBand: form!.band as AlertSettings['minimumExposureBand'],
        alertOnCompromiseBelowThreshold: form!.compromise,
        alertOnKnownExploited: form!.kev,
        minimumEpssProbability: fraction(form!.epss),
        minimumEpssPercentile: fraction(form!.percentile),
      },
      { onSuccess: (d) => setForm(formOf(d)) },
    );
  const readOnly = !can('hunt.manage');
  return (
    <section aria-labelledby="hunt-alert-settings">
      <h2 id="hunt-alert-settings">Alert settings</h2>
      <Loadable query={settings}>
        {() => form && (
          <form className="inline-form" aria-label="Hunt alert settings" onSubmit={(e) => { e.preventDefault(); submit(); }}>
            <fieldset disabled={readOnly || save.isPending}>
              <Select label="Alert from exposure band" any={null} value={form.band} options={BANDS} onChange={(v) => setForm({ ...form, band: v })} />
              <label className="field"><span>Minimum EPSS probability (%)</span>
                <input type="number" min={0} max={100} step="any" placeholder="no gate" value={form.epss} onChange={(e) => setForm({ ...form, epss: e.target.value })} />
              </label>
              <label className="field"><span>Minimum EPSS percentile (%)</span>
                <input type="number" min={0} max={100} step="any" placeholder="no gate" value={form.percentile} onChange={(e) => setForm({ ...form, percentile: e.target.value })} />
              </label>
              <label className="check"><input type="checkbox" checked={form.compromise} onChange={(e) => setForm({ ...form, compromise: e.target.checked })} /> Alert on a compromise signal below the band</label>
              <label className="check"><input type="checkbox" checked={form.kev} onChange={(e) => setForm({ ...form, kev: e.target.checked })} /> Alert on CISA KEV CVEs whatever the band and EPSS</label>
              {!readOnly && <button type="submit">Save alert settings</button>}
            </fieldset>
            {save.isSuccess && <span role="status" className="muted small">Saved.</span>}
            <ErrorText error={save.error} />
          </form>
        )}
      </Loadable>
      <p className="muted small">The EPSS gates hold back exposure-band alerts on CVEs scored below them; compromise signals and CVEs without a score are never held back, and the KEV switch raises an alert for a KEV-listed CVE whenever software it names is present or may be.</p>
    </section>
  );
}

function formOf(s: AlertSettings) {
  return { band: s.minimumExposureBand, compromise: s.alertOnCompromiseBelowThreshold, kev: s.alertOnKnownExploited, epss: percent(s.minimumEpssProbability), percentile: percent(s.minimumEpssPercentile) };
}
