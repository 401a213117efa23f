import type { PipelineDef, Step } from '../sigma-pipeline.fns.js';

/**
 * Elastic Common Schema (pySigma-backend-elasticsearch's `ecs_windows` and `ecs_kubernetes`,
 * LGPL-3.0: the mappings as facts) for Lucene and ES|QL: Winlogbeat 7+ field names for
 * Windows rules (the event's own fields under `winlog.event_data.`, the channel of the rule's
 * service as a condition, numbers as text except ports, pids and addresses), and the
 * Kubernetes audit log's fields under `kubernetes.audit.`. Rules of other logsources pass
 * through unchanged.
 */

const WINDOWS_CHANNELS: Record<string, string | string[]> = {
  security: 'Security',
  application: 'Application',
  system: 'System',
  sysmon: 'Microsoft-Windows-Sysmon/Operational',
  powershell: ['Microsoft-Windows-PowerShell/Operational', 'PowerShellCore/Operational'],
  'powershell-classic': 'Windows PowerShell',
  taskscheduler: 'Microsoft-Windows-TaskScheduler/Operational',
  wmi: 'Microsoft-Windows-WMI-Activity/Operational',
  'dns-server': 'DNS Server',
  'dns-server-audit': 'Microsoft-Windows-DNS-Server/Audit',
  'dns-server-analytic': 'Microsoft-Windows-DNS-Server/Analytical',
  'driver-framework': 'Microsoft-Windows-DriverFrameworks-UserMode/Operational',
  ntlm: 'Microsoft-Windows-NTLM/Operational',
  dhcp: 'Microsoft-Windows-DHCP-Server/Operational',
  'msexchange-management': 'MSExchange Management',
  applocker: [
    'Microsoft-Windows-AppLocker/MSI and Script',
    'Microsoft-Windows-AppLocker/EXE and DLL',
    'Microsoft-Windows-AppLocker/Packaged app-Deployment',
    'Microsoft-Windows-AppLocker/Packaged app-Execution',
  ],
  'printservice-admin': 'Microsoft-Windows-PrintService/Admin',
  'printservice-operational': 'Microsoft-Windows-PrintService/Operational',
  'codeintegrity-operational': 'Microsoft-Windows-CodeIntegrity/Operational',
  'smbclient-security': 'Microsoft-Windows-SmbClient/Security',
  'firewall-as': 'Microsoft-Windows-Windows Firewall With Advanced Security/Firewall',
  'bits-client': 'Microsoft-Windows-Bits-Client/Operational',
  windefend: 'Microsoft-Windows-Windows Defender/Operational',
  'terminalservices-localsessionmanager': 'Microsoft-Windows-TerminalServices-LocalSessionManager/Operational',
  'microsoft-servicebus-client': 'Microsoft-ServiceBus-Client',
  ldap_debug: 'Microsoft-Windows-LDAP-Client/Debug',
  'security-mitigations': ['Microsoft-Windows-Security-Mitigations/Kernel Mode', 'Microsoft-Windows-Security-Mitigations/User Mode'],
  'diagnosis-scripted': 'Microsoft-Windows-Diagnosis-Scripted/Operational',
  'shell-core': 'Microsoft-Windows-Shell-Core/Operational',
};

/** Fields whose ECS name depends on the rule's category or service. */
const VARIABLE: Array<[field: string, by: 'category' | 'service', value: string, mapped: string]> = [
  ['FileVersion', 'category', 'process_creation', 'process.pe.file_version'],
  ['FileVersion', 'category', 'image_load', 'file.pe.file_version'],
  ['Description', 'category', 'process_creation', 'process.pe.description'],
  ['Description', 'category', 'image_load', 'file.pe.description'],
  ['Description', 'category', 'sysmon_error', 'winlog.event_data.Description'],
  ['Product', 'category', 'process_creation', 'process.pe.product'],
  ['Product', 'category', 'image_load', 'file.pe.product'],
  ['Company', 'category', 'process_creation', 'process.pe.company'],
  ['Company', 'category', 'image_load', 'file.pe.company'],
  ['OriginalFileName', 'category', 'process_creation', 'process.pe.original_file_name'],
  ['OriginalFileName', 'category', 'image_load', 'file.pe.original_file_name'],
  ['CommandLine', 'category', 'process_creation', 'process.command_line'],
  ['CommandLine', 'service', 'security', 'process.command_line'],
  ['CommandLine', 'service', 'powershell-classic', 'powershell.command.value'],
  ['Protocol', 'category', 'network_connection', 'network.transport'],
  ['Initiated', 'category', 'network_connection', 'network.direction'],
  ['Signature', 'category', 'driver_loaded', 'file.code_signature.subject_name'],
  ['Signature', 'category', 'image_loaded', 'file.code_signature.subject_name'],
  ['EngineVersion', 'service', 'powershell-classic', 'powershell.engine.version'],
  ['HostVersion', 'service', 'powershell-classic', 'powershell.process.executable_version'],
  ['SubjectLogonId', 'service', 'security', 'winlog.logon.id'],
  ['ServiceName', 'service', 'security', 'service.name'],
  ['SubjectDomainName', 'service', 'security', 'user.domain'],
  ['SubjectUserName', 'service', 'security', 'user.name'],
  ['SubjectUserSid', 'service', 'security', 'user.id'],
  ['TargetLogonId', 'service', 'security', 'winlog.logon.id'],
];

const WINDOWS_FIELDS: Record<string, string> = {
  EventID: 'event.code', Channel: 'winlog.channel', Provider_Name: 'winlog.provider_name', ComputerName: 'winlog.computer_name',
  FileName: 'file.path', ProcessGuid: 'process.entity_id', ProcessId: 'process.pid', Image: 'process.executable',
  CurrentDirectory: 'process.working_directory', ParentProcessGuid: 'process.parent.entity_id', ParentProcessId: 'process.parent.pid',
  ParentImage: 'process.parent.executable', ParentCommandLine: 'process.parent.command_line', TargetFilename: 'file.path',
  SourceIp: 'source.ip', SourceHostname: 'source.domain', SourcePort: 'source.port', DestinationIp: 'destination.ip',
  DestinationHostname: 'destination.domain', DestinationPort: 'destination.port', DestinationPortName: 'network.protocol',
  ImageLoaded: 'file.path', Signed: 'file.code_signature.signed', SignatureStatus: 'file.code_signature.status', Imphash: 'file.pe.imphash',
  SourceProcessGuid: 'process.entity_id', SourceProcessId: 'process.pid', SourceImage: 'process.executable', Device: 'file.path',
  SourceThreadId: 'process.thread.id', TargetObject: 'registry.path', PipeName: 'file.name', Destination: 'process.executable',
  QueryName: 'dns.question.name', QueryStatus: 'sysmon.dns.status', IsExecutable: 'sysmon.file.is_executable', Archived: 'sysmon.file.archived',
  CommandName: 'powershell.command.name', CommandPath: 'powershell.command.path', CommandType: 'powershell.command.type',
  HostApplication: 'process.command_line', HostId: 'process.entity_id', HostName: 'process.title', NewEngineState: 'powershell.engine.new_state',
  PipelineId: 'powershell.pipeline_id', PreviousEngineState: 'powershell.engine.previous_state', RunspaceId: 'powershell.runspace_id',
  ScriptName: 'file.path', SequenceNumber: 'event.sequence', NewProviderState: 'powershell.provider.new_state',
  ProviderName: 'powershell.provider.name', MessageNumber: 'powershell.sequence', MessageTotal: 'powershell.total',
  ScriptBlockText: 'powershell.file.script_block_text', ScriptBlockId: 'powershell.file.script_block_id', AccountDomain: 'user.domain',
  AccountName: 'user.name', Application: 'process.executable', ClientAddress: 'source.ip', ClientName: 'source.domain',
  DestAddress: 'destination.ip', DestPort: 'destination.port', IpAddress: 'source.ip', IpPort: 'source.port', NewProcessId: 'process.pid',
  NewProcessName: 'process.executable', ParentProcessName: 'process.parent.name', ProcessName: 'process.executable',
  SourceAddress: 'source.ip', TargetDomainName: 'user.domain', User: 'user.name', WorkstationName: 'source.domain',
  Payload: 'powershell.file.script_block_text',
};

const windows = { product: ['windows'] };

const ecsWindowsSteps: Step[] = [
  ...Object.entries(WINDOWS_CHANNELS).map(([service, channel]): Step => ({
    kind: 'prefix',
    tests: [{ field: 'winlog.channel', values: Array.isArray(channel) ? channel : [channel] }],
    when: { product: ['windows'], service: [service] },
  })),
  ...VARIABLE.map(([field, by, value, mapped]): Step => ({ kind: 'map', mapping: { [field]: mapped }, when: { product: ['windows'], [by]: [value] } })),
  { kind: 'map', mapping: WINDOWS_FIELDS, when: windows },
  // Every ECS name has a dot after its first word; what has none is the event's own field.
  { kind: 'prefixFields', prefix: 'winlog.event_data.', unless: /^\w+\./, when: windows },
  { kind: 'boolValues', field: 'network.direction', values: { true: 'egress', false: 'ingress' } },
  { kind: 'toText', except: ['destination.port', 'source.port', 'process.parent.pid', 'process.pid', 'destination.ip', 'source.ip'], when: windows },
];

export const ecsWindowsLucene: PipelineDef = {
  name: 'ecs_windows',
  target: 'elasticsearch-lucene',
  description: 'Elastic Common Schema, Windows logs as Winlogbeat 7+ ships them',
  steps: ecsWindowsSteps,
};
export const ecsWindowsEsql: PipelineDef = { ...ecsWindowsLucene, target: 'esql' };

const kubernetesAudit = { product: ['kubernetes'], service: ['audit'] };
export const ecsKubernetes: PipelineDef = {
  name: 'ecs_kubernetes',
  target: 'elasticsearch-lucene',
  description: 'Elastic Common Schema, the Kubernetes audit log',
  steps: [
    { kind: 'prefix', tests: [{ field: 'kubernetes.audit.kind', values: ['Event'] }], when: kubernetesAudit },
    {
      kind: 'map',
      mapping: {
        verb: 'kubernetes.audit.verb',
        apiGroup: 'kubernetes.audit.objectRef.apiGroup',
        resource: 'kubernetes.audit.objectRef.resource',
        subresource: 'kubernetes.audit.objectRef.subresource',
        namespace: 'kubernetes.audit.objectRef.namespace',
        username: 'kubernetes.audit.user.username',
        capabilities: 'kubernetes.audit.requestObject.spec.containers.securityContext.capabilities.add',
        privileged: 'kubernetes.audit.responseObject.spec.containers.securityContext.privileged',
        hostPath: 'kubernetes.audit.requestObject.spec.volumes.hostPath',
      },
    },
    // The core API group and a missing subresource are written as empty strings: no test.
    { kind: 'dropEmpty', fields: ['kubernetes.audit.objectRef.apiGroup', 'kubernetes.audit.objectRef.subresource'] },
  ],
};
