import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { compileSigma, type CompiledRule } from './sigma-compile.fns.js';
import { EventView } from './sigma-event.fns.js';
import { hasShared, sharedPath } from '../../../../test/support/shared-dir.js';

// SigmaHQ's rules and regression events (shared/fixtures/sigma, Detection Rule License 1.1); skipped when absent.
const FIXTURE = sharedPath('fixtures/sigma');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith('.yml') || e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
  );
}

/** An EVTX record rendered as JSON → the flat event Sigma's Windows rules read. */
function flattenEvtx(record: { Event: { System: Record<string, unknown>; EventData?: Record<string, unknown> | null } }): Record<string, unknown> {
  const sys = record.Event.System;
  const provider = (sys.Provider as { '#attributes'?: { Name?: string } } | undefined)?.['#attributes']?.Name;
  return { ...(record.Event.EventData ?? {}), EventID: sys.EventID, Channel: sys.Channel, Computer: sys.Computer, Provider_Name: provider };
}

/** Objects written one after another (pretty-printed), not a JSON array. */
function concatenatedJson(text: string): unknown[] {
  const out: unknown[] = [];
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

const files = hasShared('fixtures/sigma') ? yamlFiles(join(FIXTURE, 'rules')) : [];
const compiled = new Map<string, { rule: CompiledRule; file: string }>();
const refused: Array<{ file: string; rule: string; construct: string; line: number | null }> = [];
for (const file of files) {
  const unit = compileSigma(readFileSync(file, 'utf8'));
  for (const rule of unit.rules) if (rule.id) compiled.set(rule.id, { rule, file });
  for (const r of unit.refusals) refused.push({ file, rule: r.rule, construct: r.construct, line: r.line });
}

describe.skipIf(!hasShared('fixtures/sigma'))('the SigmaHQ rule set', () => {
  it('compiles every rule or refuses it with the construct and line', () => {
    expect(files.length).toBeGreaterThan(2000);
    for (const r of refused) {
      expect(r.construct).toMatch(/\S/);
      expect(r.line).toBeGreaterThan(0);
    }
    const byConstruct: Record<string, number> = {};
    for (const r of refused) byConstruct[r.construct] = (byConstruct[r.construct] ?? 0) + 1;
    // The counts docs/detections.md quotes.
    console.log(`sigma fixture: ${files.length} files, ${compiled.size} compiled, ${refused.length} refused`, byConstruct);
    expect(compiled.size + refused.length).toBeGreaterThanOrEqual(files.length);
    expect(refused.length).toBeLessThan(files.length / 100);
  });

  // The regression folders whose events, evaluated as they are, disagree with info.yml (README).
  const KNOWN_DISAGREEMENTS: Record<string, string> = {
    win_defender_exploit_redsun_tiering_engine_detected_as_eicar: 'event keys with spaces (Threat Name) where the rule reads ThreatName',
    registry_set_change_security_zones: 'match_count 1 for 3 matching events',
    registry_set_disable_administrative_share: 'match_count 1 for 2 matching events',
  };

  it('matches SigmaHQ regression events as their info.yml says', () => {
    const infos = yamlFiles(join(FIXTURE, 'regression')).filter((f) => f.endsWith('info.yml'));
    expect(infos.length).toBe(171);
    let checked = 0;
    for (const info of infos) {
      const meta = parse(readFileSync(info, 'utf8')) as { rule_metadata: Array<{ id: string }>; regression_tests_info: Array<{ match_count?: number }> };
      const folder = dirname(info);
      const name = folder.split('/').pop()!;
      const ruleId = meta.rule_metadata[0]!.id;
      const entry = compiled.get(ruleId);
      const jsonFile = join(folder, `${ruleId}.json`);
      if (!entry || !existsSync(jsonFile)) continue;
      const events = concatenatedJson(readFileSync(jsonFile, 'utf8')).map((e) => flattenEvtx(e as Parameters<typeof flattenEvtx>[0]));
      const matched = events.filter((e) => entry.rule.matches(new EventView(e))).length;
      const expected = meta.regression_tests_info[0]!.match_count;
      const known = KNOWN_DISAGREEMENTS[name];
      if (known) {
        expect(matched, `${name}: ${known}`).not.toBe(expected);
        continue;
      }
      if (expected === undefined) expect(matched, `${name} (${entry.file})`).toBeGreaterThan(0);
      else expect(matched, `${name} (${entry.file})`).toBe(expected);
      // The pre-filter never hides a match: the bare condition agrees.
      expect(events.filter((e) => entry.rule.explain(e).matched).length).toBe(matched);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(160);
  });
});
