import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { compileSigma, convertUnit, formatNames, isTarget, pipelineNames, readTests, runTests, TARGETS, type CompiledUnit } from '../modules/alerts/index.js';
import { CliError } from './config-commands.js';

/**
 * `rampart detections convert|test`: Sigma rules offline, for CI (no server). A file is one unit:
 * its documents (a correlation rule with its base rules) compile together. A file may also hold
 * `CodeDetection` documents (`rampart apply`'s form): their `spec.sigma` is the rule and
 * `spec.tests` its tests; a plain Sigma rule may carry `tests:` itself.
 */
type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
const std: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

function sigmaFiles(target: string): string[] {
  if (!fs.existsSync(target)) throw new CliError(`${target}: no such file or folder`);
  if (fs.statSync(target).isFile()) return [target];
  return fs
    .readdirSync(target, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? sigmaFiles(path.join(target, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(target, e.name)] : []));
}

interface Unit {
  file: string;
  /** Where the rule text starts in the file (CodeDetection documents are nested). */
  lineOffset: number;
  unit: CompiledUnit;
  tests: unknown;
}

/** The units of a file: the whole file when it is Sigma, one per CodeDetection document otherwise. */
function unitsOf(file: string, forConversion: boolean): Unit[] {
  const text = fs.readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const values = list.map((d) => ({ value: d.toJS() as Record<string, unknown> | null, start: text.slice(0, d.range[0]).split('\n').length }));
  const codeDocs = values.filter((v) => v.value && v.value.kind === 'CodeDetection');
  if (codeDocs.length === 0) {
    const tests = values.flatMap((v) => (v.value && Array.isArray(v.value.tests) ? v.value.tests : []));
    return [{ file, lineOffset: 0, unit: compileSigma(text, { forConversion }), tests: tests.length ? tests : undefined }];
  }
  return codeDocs.flatMap((v) => {
    const spec = (v.value!.spec ?? {}) as Record<string, unknown>;
    if (typeof spec.sigma !== 'string') return [];
    const at = text.indexOf(spec.sigma.split('\n')[0]!, 0);
    return [{ file, lineOffset: at >= 0 ? text.slice(0, at).split('\n').length - 1 : v.start, unit: compileSigma(spec.sigma, { forConversion }), tests: spec.tests }];
  });
}

export async function detectionsCommand(args: string[], out: Out = std): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'convert' && sub !== 'test') throw new CliError('usage: rampart detections convert -f <file|dir> --target <splunk|elasticsearch-lucene|esql|kusto> [--pipeline name [--format data_model]] [--json] | test -f <dir>');
  const { values } = parseArgs({
    args: rest,
    options: { file: { type: 'string', short: 'f' }, target: { type: 'string' }, pipeline: { type: 'string' }, format: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
  });
  if (!values.file) throw new CliError(`detections ${sub} needs -f <file|dir>`);
  const units = sigmaFiles(values.file).flatMap((f) => unitsOf(f, sub === 'convert'));
  return sub === 'convert' ? convert(units, values, out) : test(units, out);
}

function convert(units: Unit[], values: { target?: string; pipeline?: string; format?: string; json?: boolean }, out: Out): number {
  const target = values.target ?? '';
  if (!isTarget(target)) throw new CliError(`--target must be one of ${TARGETS.join(', ')}`);
  const valid = pipelineNames(target);
  if (values.pipeline && !valid.includes(values.pipeline)) throw new CliError(`--pipeline ${values.pipeline} is not a ${target} pipeline: valid pipelines are ${valid.length ? valid.join(', ') : 'none'}`);
  const formats = formatNames(target, values.pipeline);
  if (values.format && values.format !== 'default' && !formats.includes(values.format)) throw new CliError(`--format ${values.format} needs a pipeline that writes it (splunk_cim_data_model for data_model)`);
  const results: Array<{ file: string; title: string; queries: string[] } | { file: string; error: string }> = [];
  for (const u of units) {
    const refused = u.unit.refusals[0];
    const title = u.unit.correlations[0]?.title ?? u.unit.rules[0]?.title ?? path.basename(u.file);
    if (refused) results.push({ file: u.file, error: `${refused.rule}: ${refused.construct} (line ${(refused.line ?? 0) + u.lineOffset}): ${refused.message}` });
    else {
      try {
        results.push({ file: u.file, title, queries: convertUnit(u.unit, target, values.pipeline, values.format) });
      } catch (err) {
        results.push({ file: u.file, error: `${target} cannot express ${(err as { construct?: string }).construct ?? 'the rule'}: ${(err as Error).message}` });
      }
    }
  }
  if (values.json) out.stdout(`${JSON.stringify(results, null, 2)}\n`);
  else for (const r of results) 'error' in r ? out.stderr(`${r.file}: ${r.error}\n`) : out.stdout(`# ${r.file}: ${r.title}\n${r.queries.join('\n')}\n\n`);
  return results.some((r) => 'error' in r) ? 1 : 0;
}

function test(units: Unit[], out: Out): number {
  let failed = 0;
  let passed = 0;
  for (const u of units) {
    for (const r of u.unit.refusals) {
      failed++;
      out.stdout(`FAIL ${u.file}:${(r.line ?? 0) + u.lineOffset} ${r.rule}: refused (${r.construct}): ${r.message}\n`);
    }
    const { tests, errors } = readTests(u.tests);
    for (const e of errors) {
      failed++;
      out.stdout(`FAIL ${u.file}: ${e}\n`);
    }
    const ruleName = u.unit.correlations[0]?.title ?? u.unit.rules[0]?.title ?? '';
    for (const o of runTests(u.unit, tests)) {
      if (o.passed) passed++;
      else failed++;
      out.stdout(o.passed ? `ok   ${u.file} ${ruleName}: ${o.name}\n` : `FAIL ${u.file}:${(u.unit.rules[0]?.line ?? 1) + u.lineOffset} ${ruleName}: ${o.name} (event ${o.failingIndex}: ${JSON.stringify(o.failingEvent)})\n`);
    }
  }
  out.stdout(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}
