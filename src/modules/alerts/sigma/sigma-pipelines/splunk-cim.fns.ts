import type { Printed } from '../sigma-convert.fns.js';
import type { PipelineDef, PipelineState, Step, When } from '../sigma-pipeline.fns.js';

/**
 * Splunk's Common Information Model (pySigma-backend-splunk's `splunk_cim_data_model`, LGPL-2.1:
 * its mappings as facts): a rule of a logsource that has a CIM data set is written with the data
 * set's field names (`Processes.process`). The default output is the search itself; the
 * `data_model` format is the accelerated `| tstats … from datamodel=…` search over the data
 * set, grouped by its fields. Only the fields the data set has are allowed; another refuses the
 * rule, as does a logsource without a data set.
 */

const PROCESS = {
  CommandLine: 'Processes.process', Computer: 'Processes.dest', CurrentDirectory: 'Processes.process_current_directory',
  Image: 'Processes.process_path', IntegrityLevel: 'Processes.process_integrity_level', OriginalFileName: 'Processes.original_file_name',
  ParentCommandLine: 'Processes.parent_process', ParentImage: 'Processes.parent_process_path', ParentProcessGuid: 'Processes.parent_process_guid',
  ParentProcessId: 'Processes.parent_process_id', ProcessGuid: 'Processes.process_guid', ProcessId: 'Processes.process_id', User: 'Processes.user',
};
const REGISTRY = {
  Computer: 'Registry.dest', Details: 'Registry.registry_value_data', EventType: 'Registry.action', Image: 'Registry.process_path',
  ProcessGuid: 'Registry.process_guid', ProcessId: 'Registry.process_id', TargetObject: 'Registry.registry_key_name',
};
const FILE = {
  Computer: 'Filesystem.dest', CreationUtcTime: 'Filesystem.file_create_time', Image: 'Filesystem.process_path',
  ProcessGuid: 'Filesystem.process_guid', ProcessId: 'Filesystem.process_id', TargetFilename: 'Filesystem.file_path',
};
const PROXY = {
  'c-uri': 'Web.url', 'c-uri-query': 'Web.uri_query', 'c-uri-stem': 'Web.uri_path', 'c-useragent': 'Web.http_user_agent',
  'cs-method': 'Web.http_method', 'cs-host': 'Web.dest', 'cs-referrer': 'Web.http_referrer', src_ip: 'Web.src', dst_ip: 'Web.dest_ip',
};
const DNS = {
  'destination.ip': 'DNS.dest', 'destination.port': 'DNS.dest_port', 'dns.answers.name': 'DNS.answer', 'dns.answers.ttl': 'DNS.ttl',
  'dns.answers.type': 'DNS.record_type', 'dns.id': 'DNS.transaction_id', 'dns.question.name': 'DNS.query', 'dns.question.type': 'DNS.query_type',
  'dns.response.code': 'DNS.reply_code_id', 'source.ip': 'DNS.src', 'source.port': 'DNS.src_port',
};

/** One CIM data set: the rule's fields must be its own, mapped, and the data set chosen. */
function dataSet(label: string, dataModel: string, mapping: Record<string, string>, when: When): Step[] {
  return [
    { kind: 'onlyFields', fields: Object.keys(mapping), message: `the ${dataModel} data set of the Splunk CIM has no such field for ${label} rules`, when },
    { kind: 'map', mapping, when },
    { kind: 'setTable', table: dataModel, fields: Object.values(mapping), when },
  ];
}

/** The `tstats` search over the data model, deferred parts (`| regex`) after its `by` clause. */
function tstats(parts: Printed, state: PipelineState): string {
  const dataSetName = state.table!.split('.')[1]!;
  // OR regexes capture before the plain deferred parts, then `| search` tests their fields.
  const orRegex = parts.orRegex.length ? `\n| ${parts.orRegex.join('\n| ')}` : '';
  const search = parts.orRegex.length ? `\n| search ${parts.text ?? '*'}` : '';
  const deferred = `${orRegex}${parts.deferred.join('')}${search}`.replace(/\n/g, ' ');
  return (
    `| tstats summariesonly=false allow_old_summaries=true fillnull_value="null" count min(_time) as firstTime max(_time) as lastTime ` +
    `from datamodel=${state.table} where ${parts.text ?? '*'} by ${state.fields.join(' ')}${deferred} ` +
    `| \`drop_dm_object_name(${dataSetName})\` ` +
    `| convert timeformat="%Y-%m-%dT%H:%M:%S" ctime(firstTime) ` +
    `| convert timeformat="%Y-%m-%dT%H:%M:%S" ctime(lastTime) `
  );
}

export const splunkCim: PipelineDef = {
  name: 'splunk_cim_data_model',
  target: 'splunk',
  description: 'Splunk CIM data models: Endpoint.Processes, Endpoint.Registry, Endpoint.Filesystem, Web.Proxy, Network_Resolution.DNS',
  steps: [
    ...dataSet('process_creation', 'Endpoint.Processes', PROCESS, { category: ['process_creation'], product: ['windows', 'linux'] }),
    ...dataSet('registry', 'Endpoint.Registry', REGISTRY, { category: ['registry_add', 'registry_delete', 'registry_event', 'registry_set'], product: ['windows'] }),
    ...dataSet('file_event', 'Endpoint.Filesystem', FILE, { category: ['file_event'], product: ['windows'] }),
    ...dataSet('proxy', 'Web.Proxy', PROXY, { category: ['proxy'] }),
    ...dataSet('DNS', 'Network_Resolution.DNS', DNS, { category: ['network'], service: ['dns'] }),
    {
      kind: 'requireTable',
      message: 'rule type not supported by the Splunk CIM data model pipeline (it maps windows/linux process_creation, windows registry_* and file_event, proxy, and network/dns)',
    },
  ],
  formats: { data_model: tstats },
};
