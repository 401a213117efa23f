import { ConversionError, printParts, printQuery, ruleTreeOf, type Target } from './sigma-convert.fns.js';
import type { CompileOptions } from './sigma-fields.fns.js';
import { applyPipeline, type PipelineDef } from './sigma-pipeline.fns.js';
import { azureMonitor } from './sigma-pipelines/azure-monitor.fns.js';
import { ecsKubernetes, ecsWindowsEsql, ecsWindowsLucene } from './sigma-pipelines/ecs.fns.js';
import { microsoft365Defender, microsoftXdr } from './sigma-pipelines/microsoft-xdr.fns.js';
import { sentinelAsim } from './sigma-pipelines/sentinel-asim.fns.js';
import { splunkCim } from './sigma-pipelines/splunk-cim.fns.js';

/** The processing pipelines Rampart knows, by pySigma's names (`?pipeline=`, `--pipeline`). */
export const PIPELINES: readonly PipelineDef[] = [splunkCim, ecsWindowsLucene, ecsKubernetes, ecsWindowsEsql, microsoftXdr, microsoft365Defender, azureMonitor, sentinelAsim];

export const pipelineNames = (target?: Target): string[] => PIPELINES.filter((p) => !target || p.target === target).map((p) => p.name);

/** A pipeline the target does not have: the caller answers 422 (or exit 1) listing `valid`. */
export class UnknownPipelineError extends Error {
  constructor(
    readonly pipeline: string,
    readonly target: Target,
    readonly valid: string[],
  ) {
    super(`Unknown pipeline ${pipeline} for ${target}: valid pipelines are ${valid.length ? valid.join(', ') : 'none'}`);
  }
}

export function pipelineFor(name: string, target: Target): PipelineDef {
  const def = PIPELINES.find((p) => p.name === name && p.target === target);
  if (!def) throw new UnknownPipelineError(name, target, pipelineNames(target));
  return def;
}

/** The output formats a pipeline adds to the default one (Splunk CIM's `data_model`). */
export const formatNames = (target: Target, pipeline: string | null | undefined): string[] =>
  Object.keys(PIPELINES.find((p) => p.name === pipeline && p.target === target)?.formats ?? {});

/**
 * One detection rule as a query of `target`, through `pipeline` when one is named, in the
 * pipeline's `format` when one is named (the caller checked both exist).
 */
export function convertWithPipeline(rule: Record<string, unknown>, target: Target, pipeline: string | null | undefined, options: CompileOptions = {}, format?: string): string {
  if (!pipeline) return printQuery(ruleTreeOf(rule, options), target);
  const def = pipelineFor(pipeline, target);
  const { tree, state } = applyPipeline(def, rule, ruleTreeOf(rule, options));
  const formatter = format && format !== 'default' ? def.formats?.[format] : undefined;
  if (format && format !== 'default' && !formatter) throw new ConversionError(`format ${format}`, `pipeline ${pipeline} has no output format ${format}`);
  if (formatter) return formatter(printParts(tree, target), state);
  const query = printQuery(tree, target);
  return def.finish ? def.finish(query, state) : query;
}

export { ConversionError };
