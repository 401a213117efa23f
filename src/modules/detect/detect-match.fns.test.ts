import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EventView } from '../alerts/index.js';
import { DetectionSet, loadDetection, logsourceApplies, type DeclaredEvent } from './detect-match.fns.js';
import { hasShared, sharedPath } from '../../../test/support/shared-dir.js';

// SigmaHQ's rules and regression events (shared/fixtures/sigma, Detection Rule License 1.1); skipped when absent.
const FIXTURE = sharedPath('fixtures/sigma');
const yamlFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));

/** Objects written one after another (pretty-printed), as the regression files hold them. */
function concatenatedJson(text: string): Array<Record<string, any>> {
  const out: Array<Record<string, any>> = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

describe.skipIf(!hasShared('fixtures/sigma'))('DetectionSet: the needle index selects exactly the rules that match', () => {
  it('on SigmaHQ regression events, every (rule, event) match equals the rule run alone with its own pre-filter', () => {
    const texts = yamlFiles(join(FIXTURE, 'rules')).map((f) => readFileSync(f, 'utf8'));
    const set = new DetectionSet(
      texts.map((query, i) => loadDetection({ id: String(i), name: `rule ${i}`, description: '', severity: 'medium', logTable: null, query, attackTechniques: [], attackTactics: [] })),
    );
    const logsourceOf = new Map<string, Record<string, string>>();
    for (const d of set.detections) for (const r of d.rules) if (r.id) logsourceOf.set(r.id, Object.fromEntries(Object.entries(r.logsource).map(([k, v]) => [k, String(v).toLowerCase()])));
    const events: DeclaredEvent[] = [];
    for (const info of yamlFiles(join(FIXTURE, 'regression')).filter((f) => f.endsWith('info.yml'))) {
      const id = (parse(readFileSync(info, 'utf8')) as { rule_metadata: Array<{ id: string }> }).rule_metadata[0]!.id;
      const json = join(dirname(info), `${id}.json`);
      if (!logsourceOf.has(id) || !existsSync(json)) continue;
      for (const r of concatenatedJson(readFileSync(json, 'utf8'))) {
        const ev = r.Event;
        events.push({ logsource: logsourceOf.get(id)!, event: { ...(ev.EventData ?? {}), EventID: ev.System.EventID, Channel: ev.System.Channel, Computer: ev.System.Computer } });
      }
    }
    expect(events.length).toBeGreaterThan(100);

    const got = new Set<string>();
    const matches = set.match(events);
    for (const [id, m] of matches.perDetection) for (const e of m.events) got.add(`${id}:${events.findIndex((x) => x.event === e)}`);
    const want = new Set<string>();
    events.forEach(({ logsource, event }, i) => {
      const view = new EventView(event);
      for (const d of set.detections) if (d.rules.some((r) => logsourceApplies(r.logsource, logsource) && r.matches(view))) want.add(`${d.detection.id}:${i}`);
    });
    expect(want.size).toBeGreaterThan(100);
    expect([...got].sort()).toEqual([...want].sort());
  }, 300_000);
});
