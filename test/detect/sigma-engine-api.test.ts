import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/**
 * GET /api/code-detections/{id}/query and POST /api/code-detections/{id}/test on a real SigmaHQ
 * rule (test/fixtures/sigma, DRL 1.1): the rule in four query languages, and events run through it.
 */
const certutil = fs.readFileSync(new URL('../fixtures/sigma/proc_creation_win_certutil_decode.yml', import.meta.url), 'utf8');

let t: TestContext;
let admin: Record<string, string>;
let sigmaId: string;
let plainId: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: certutil } });
  expect(imported.statusCode, imported.body).toBe(200);
  sigmaId = imported.json().created[0].id;
  const plain = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'Splunk search', query: 'index=main sourcetype=x' } });
  expect(plain.statusCode, plain.body).toBe(200);
  plainId = plain.json().id;
});
afterAll(() => t.close());

describe('GET /api/code-detections/{id}/query', () => {
  it('converts the rule to each target', async () => {
    const get = (target: string) => t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=${target}`, headers: admin });
    const splunk = await get('splunk');
    expect(splunk.statusCode, splunk.body).toBe(200);
    expect(splunk.json()).toEqual({
      target: 'splunk',
      pipeline: null,
      queries: [
        // SPL's OR binds tighter than its implicit AND: no parentheses needed (as pySigma writes it).
        'Image="*\\\\certutil.exe" OR OriginalFileName="CertUtil.exe" CommandLine IN ("*-decode *", "*/decode *", "*–decode *", "*—decode *", "*―decode *", "*-decodehex *", "*/decodehex *", "*–decodehex *", "*—decodehex *", "*―decodehex *")',
      ],
    });
    const kusto = (await get('kusto')).json();
    expect(kusto.queries[0]).toMatch(/^\(Image endswith "\\\\certutil\.exe" or OriginalFileName =~ "CertUtil\.exe"\) and \(CommandLine contains "-decode " or /);
    expect((await get('esql')).json().queries[0]).toMatch(/^from \* metadata _id, _index, _version \| where \(ends_with\(Image, "\\\\certutil\.exe"\) or OriginalFileName=="CertUtil\.exe"\) and /);
    expect((await get('elasticsearch-lucene')).json().queries[0]).toMatch(/^\(Image:\*\\\\certutil.exe OR OriginalFileName:CertUtil.exe\) AND \(CommandLine:\(\*\\-decode\\ \* OR /);
  });

  it('maps the rule through a pipeline: the product\'s table and columns', async () => {
    const get = (pipeline: string) => t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=kusto&pipeline=${pipeline}`, headers: admin });
    const windash = (field: string) =>
      ['-decode ', '/decode ', '–decode ', '—decode ', '―decode ', '-decodehex ', '/decodehex ', '–decodehex ', '—decodehex ', '―decodehex '].map((v) => `${field} contains "${v}"`).join(' or ');
    const xdr = await get('microsoft_xdr_pipeline');
    expect(xdr.statusCode, xdr.body).toBe(200);
    expect(xdr.json()).toEqual({
      target: 'kusto',
      pipeline: 'microsoft_xdr_pipeline',
      queries: [`DeviceProcessEvents\n| where (FolderPath endswith "\\\\certutil.exe" or ProcessVersionInfoOriginalFileName =~ "CertUtil.exe") and (${windash('ProcessCommandLine')})`],
    });
    // ASIM maps OriginalFileName to two columns: either matches.
    expect((await get('sentinel_asim_pipeline')).json().queries).toEqual([
      `imProcessCreate\n| where (TargetProcessName endswith "\\\\certutil.exe" or (TargetProcessFileOriginalName =~ "CertUtil.exe" or TargetProcessFilename =~ "CertUtil.exe")) and (${windash('TargetProcessCommandLine')})`,
    ]);

    // Splunk CIM: the data set's fields; the data_model format is the tstats search over it.
    const cim = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=splunk&pipeline=splunk_cim_data_model&format=data_model`, headers: admin });
    expect(cim.statusCode, cim.body).toBe(200);
    const cimQuery: string = cim.json().queries[0];
    expect(cimQuery.startsWith('| tstats summariesonly=false allow_old_summaries=true fillnull_value="null" count min(_time) as firstTime max(_time) as lastTime from datamodel=Endpoint.Processes where Processes.process_path="*\\\\certutil.exe" OR Processes.original_file_name="CertUtil.exe" Processes.process IN ("*-decode *", ')).toBe(true);
    expect(cimQuery).toContain(' by Processes.process Processes.dest Processes.process_current_directory ');
    expect(cimQuery).toContain('| `drop_dm_object_name(Processes)` |');
    // ECS for Lucene: Winlogbeat's names.
    const ecs = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=elasticsearch-lucene&pipeline=ecs_windows`, headers: admin });
    expect(ecs.json().queries[0]).toMatch(/^\(process\.executable:\*\\\\certutil\.exe OR process\.pe\.original_file_name:CertUtil\.exe\) AND \(process\.command_line:\(/);
    // A format needs the pipeline that writes it.
    const noPipeline = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=splunk&format=data_model`, headers: admin });
    expect(noPipeline.statusCode).toBe(422);
    expect(noPipeline.json()).toEqual({ error: 'Format data_model needs a pipeline that writes it (splunk_cim_data_model for data_model)', construct: 'format data_model' });

    // A logsource the pipeline has no table for: refused, naming the pipeline.
    const linux = await t.app.inject({
      method: 'POST', url: '/api/code-detections/import', headers: admin,
      payload: { format: 'sigma', content: 'title: Linux shell\nlogsource:\n  product: linux\n  category: process_creation_linux_only\ndetection:\n  sel:\n    Image: /bin/sh\n  condition: sel\n' },
    });
    const linuxId = linux.json().created[0].id;
    const refused = await t.app.inject({ url: `/api/code-detections/${linuxId}/query?target=kusto&pipeline=microsoft_xdr_pipeline`, headers: admin });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({
      error: expect.stringMatching(/^kusto cannot express pipeline microsoft_xdr_pipeline: rule category not supported by the Microsoft XDR pipeline/),
      construct: 'pipeline microsoft_xdr_pipeline',
    });
  });

  it('answers 422 for a detection without Sigma, a pipeline, a construct the target lacks; 400, 403, 404', async () => {
    const noSigma = await t.app.inject({ url: `/api/code-detections/${plainId}/query?target=splunk`, headers: admin });
    expect(noSigma.statusCode).toBe(422);
    expect(noSigma.json()).toEqual({ error: 'This code detection has no Sigma rule (its query is not Sigma YAML)' });
    const pipeline = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=kusto&pipeline=sysmon`, headers: admin });
    expect(pipeline.statusCode).toBe(422);
    expect(pipeline.json()).toEqual({
      error: 'Unknown pipeline sysmon for kusto: valid pipelines are microsoft_xdr_pipeline, microsoft_365_defender_pipeline, azure_monitor_pipeline, sentinel_asim_pipeline',
      construct: 'pipeline sysmon',
      pipelines: ['microsoft_xdr_pipeline', 'microsoft_365_defender_pipeline', 'azure_monitor_pipeline', 'sentinel_asim_pipeline'],
    });
    // A Kusto pipeline is not a Splunk one.
    const wrongTarget = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=splunk&pipeline=microsoft_xdr_pipeline`, headers: admin });
    expect(wrongTarget.statusCode).toBe(422);
    expect(wrongTarget.json().construct).toBe('pipeline microsoft_xdr_pipeline');

    const kw = await t.app.inject({
      method: 'POST', url: '/api/code-detections/import', headers: admin,
      payload: { format: 'sigma', content: 'title: Keywords\nlogsource:\n  product: linux\ndetection:\n  keywords:\n    - mkfifo\n  condition: keywords\n' },
    });
    const kwId = kw.json().created[0].id;
    const esql = await t.app.inject({ url: `/api/code-detections/${kwId}/query?target=esql`, headers: admin });
    expect(esql.statusCode).toBe(422);
    expect(esql.json().error).toBe('esql cannot express keywords: ES|QL has no search of every field: name the field');
    expect((await t.app.inject({ url: `/api/code-detections/${kwId}/query?target=splunk`, headers: admin })).json().queries).toEqual(['"mkfifo"']);

    const bad = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=sql`, headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'target', location: 'query' });

    const nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    const denied = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=splunk`, headers: bearer(nobody.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.read'] });

    const other = await t.app.inject({ url: `/api/code-detections/${sigmaId}/query?target=splunk`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Code detection not found' });
  });
});

describe('POST /api/code-detections/{id}/test', () => {
  it('answers, per event, whether the rule matched and which selections did', async () => {
    const res = await t.app.inject({
      method: 'POST', url: `/api/code-detections/${sigmaId}/test`, headers: admin,
      payload: {
        events: [
          { Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil /decode in.b64 out.exe' },
          { Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil -urlcache -f http://x/a a' },
          { process: { name: 'bash' } },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      results: [
        { index: 0, matched: true, matchedSelections: ['selection_img', 'selection_cli'] },
        { index: 1, matched: false, matchedSelections: ['selection_img'] },
        { index: 2, matched: false, matchedSelections: [] },
      ],
    });
  });

  it('400 for no events, 422 without Sigma, 404 for another organization', async () => {
    const empty = await t.app.inject({ method: 'POST', url: `/api/code-detections/${sigmaId}/test`, headers: admin, payload: { events: [] } });
    expect(empty.statusCode).toBe(400);
    const noSigma = await t.app.inject({ method: 'POST', url: `/api/code-detections/${plainId}/test`, headers: admin, payload: { events: [{}] } });
    expect(noSigma.statusCode).toBe(422);
    const other = await t.app.inject({ method: 'POST', url: `/api/code-detections/${sigmaId}/test`, headers: bearer(t.orgB.apiKey.key), payload: { events: [{}] } });
    expect(other.statusCode).toBe(404);
  });
});
