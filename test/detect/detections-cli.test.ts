import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectionsCommand } from '../../src/cli/detections-commands.js';

/** `rampart detections convert|test` offline, on files written to a temporary folder. */
function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-detections-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}
async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await detectionsCommand(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const certutil = fs.readFileSync(new URL('../fixtures/sigma/proc_creation_win_certutil_decode.yml', import.meta.url), 'utf8');
const burst = `title: Failed logon
name: failed_logon
logsource: {product: windows, service: security}
detection:
  sel: {EventID: 4625}
  condition: sel
---
title: Password spraying burst
correlation:
  type: event_count
  rules: [failed_logon]
  group-by: [User]
  timespan: 5m
  condition: {gte: 5}
tests:
  - name: five in a minute
    events: [{EventID: 4625, User: bob, "@timestamp": "2026-01-01T00:00:00Z"}, {EventID: 4625, User: bob, "@timestamp": "2026-01-01T00:00:10Z"}, {EventID: 4625, User: bob, "@timestamp": "2026-01-01T00:00:20Z"}, {EventID: 4625, User: bob, "@timestamp": "2026-01-01T00:00:30Z"}, {EventID: 4625, User: bob, "@timestamp": "2026-01-01T00:00:40Z"}]
    expect: match
  - name: four is not a burst
    events: [{EventID: 4625, User: bob}, {EventID: 4625, User: bob}, {EventID: 4625, User: bob}, {EventID: 4625, User: bob}]
    expect: no_match
`;

describe('rampart detections convert', () => {
  it('prints the queries as JSON, one unit per file (no id needed), errors as {file, error}', async () => {
    const dir = folder({
      'certutil.yml': certutil,
      'noid.yml': 'title: No id\nlogsource: {product: linux}\ndetection:\n  keywords: [mkfifo]\n  condition: keywords\n',
      'bad.yml': 'title: Bad\nlogsource: {product: linux}\ndetection:\n  sel:\n    a|nope: 1\n  condition: sel\n',
    });
    const res = await run(['convert', '-f', dir, '--target', 'splunk', '--json']);
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout) as Array<Record<string, unknown>>;
    expect(out).toEqual([
      { file: path.join(dir, 'bad.yml'), error: 'Bad: modifier |nope (line 5): unknown value modifier "nope"' },
      { file: path.join(dir, 'certutil.yml'), title: 'File Decoded From Base64/Hex Via Certutil.EXE', queries: [expect.stringContaining('Image="*\\\\certutil.exe" OR OriginalFileName="CertUtil.exe" CommandLine IN (')] },
      { file: path.join(dir, 'noid.yml'), title: 'No id', queries: ['"mkfifo"'] },
    ]);
    const esql = await run(['convert', '-f', path.join(dir, 'noid.yml'), '--target', 'esql']);
    expect(esql.code).toBe(1);
    expect(esql.stderr).toContain('esql cannot express keywords');
    await expect(run(['convert', '-f', dir, '--target', 'sql'])).rejects.toThrow('--target must be one of splunk, elasticsearch-lucene, esql, kusto');
    const xdr = await run(['convert', '-f', path.join(dir, 'certutil.yml'), '--target', 'kusto', '--pipeline', 'microsoft_365_defender_pipeline', '--json']);
    expect(xdr.code).toBe(0);
    expect(JSON.parse(xdr.stdout)[0].queries[0]).toMatch(/^DeviceProcessEvents\n\| where \(FolderPath endswith "\\\\certutil\.exe" or ProcessVersionInfoOriginalFileName =~ "CertUtil\.exe"\) and \(ProcessCommandLine contains "-decode " or /);
    // A correlation and its base rule in one file: one unit, one query (Lucene/Kusto cannot aggregate).
    const corr = folder({ 'burst.yml': burst });
    const spl = await run(['convert', '-f', corr, '--target', 'splunk', '--json']);
    expect(spl.code).toBe(0);
    expect(JSON.parse(spl.stdout)).toEqual([
      { file: path.join(corr, 'burst.yml'), title: 'Password spraying burst', queries: ['EventID=4625\n\n| bin _time span=5m\n| stats count as event_count by _time User\n\n| search event_count >= 5'] },
    ]);
    const lucene = await run(['convert', '-f', corr, '--target', 'elasticsearch-lucene']);
    expect(lucene.code).toBe(1);
    expect(lucene.stderr).toContain('elasticsearch-lucene cannot express correlation');
    await expect(run(['convert', '-f', dir, '--target', 'kusto', '--pipeline', 'sysmon'])).rejects.toThrow(
      '--pipeline sysmon is not a kusto pipeline: valid pipelines are microsoft_xdr_pipeline, microsoft_365_defender_pipeline, azure_monitor_pipeline, sentinel_asim_pipeline',
    );
  });
});

describe('rampart detections test', () => {
  it('runs tests of Sigma files and CodeDetection documents; a failure names file:line, rule and event', async () => {
    const codeDoc = `kind: CodeDetection
name: certutil
spec:
  sigma: |
${certutil.replace(/^/gm, '    ')}
  tests:
    - name: decodes
      event: {Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil -decode a b'}
      expect: match
    - name: wrong on purpose
      event: {Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil /decodehex a b'}
      expect: no_match
`;
    const dir = folder({ 'burst.yml': burst, 'certutil.yaml': codeDoc });
    const res = await run(['test', '-f', dir]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`ok   ${path.join(dir, 'burst.yml')} Password spraying burst: five in a minute`);
    expect(res.stdout).toContain(`ok   ${path.join(dir, 'burst.yml')} Password spraying burst: four is not a burst`);
    expect(res.stdout).toContain(`ok   ${path.join(dir, 'certutil.yaml')} File Decoded From Base64/Hex Via Certutil.EXE: decodes`);
    expect(res.stdout).toMatch(new RegExp(`FAIL ${path.join(dir, 'certutil.yaml').replace(/[/.]/g, '\\$&')}:5 File Decoded From Base64/Hex Via Certutil.EXE: wrong on purpose \\(event 0: \\{"Image":`));
    expect(res.stdout).toContain('3 passed, 1 failed');
    const ok = await run(['test', '-f', path.join(dir, 'burst.yml')]);
    expect(ok.code).toBe(0);
  });
});
