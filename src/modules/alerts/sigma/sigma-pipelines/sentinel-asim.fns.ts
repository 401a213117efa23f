import type { PipelineDef } from '../sigma-pipeline.fns.js';
import { kustoTable, REGISTRY_ACTION_TYPES, registryKeySteps } from './kusto-common.fns.js';

/**
 * Microsoft Sentinel's normalized schemas (pySigma's `sentinel_asim_pipeline`): the ASIM parser
 * of the rule's category (imProcessCreate, imFileEvent, imRegistry, imNetworkSession,
 * imWebSession) with ASIM column names. A field mapped to a list matches on any of the columns.
 */

const PROCESS = 'imProcessCreate';
const FILE = 'imFileEvent';
const REGISTRY = 'imRegistry';
const NETWORK = 'imNetworkSession';
const WEB = 'imWebSession';

export const sentinelAsim: PipelineDef = {
  name: 'sentinel_asim_pipeline',
  target: 'kusto',
  description: 'Microsoft Sentinel ASIM: normalized im* parsers and columns',
  table: {
    byCategory: {
      process_creation: PROCESS,
      file_access: FILE, file_change: FILE, file_delete: FILE, file_event: FILE, file_rename: FILE,
      registry_add: REGISTRY, registry_delete: REGISTRY, registry_event: REGISTRY, registry_set: REGISTRY,
      network_connection: NETWORK,
      proxy: WEB,
      webserver: WEB,
    },
    byEventFamily: { process: PROCESS, logon: 'imAuthentication', registry: REGISTRY, file: FILE, network: NETWORK, image_load: PROCESS, pipe: FILE, wmi: PROCESS },
    refusal: 'rule category not supported by the Sentinel ASIM pipeline (it maps process_creation, file_*, registry_*, network_connection, proxy and webserver, or a Windows EventID of those families)',
  },
  steps: [
    { kind: 'drop', fields: ['EventID', 'EventCode', 'ObjectType'] },
    {
      kind: 'mapByTable',
      tables: {
        [FILE]: {
          SourceIP: 'SrcIpAddr', DestinationIP: 'DstIpAddr', SourceHostname: 'SrcHostname', DestinationHostname: 'DstHostname',
          SourcePort: 'SrcPortNumber', User: 'ActorUsername', TargetFilename: 'TargetFileName', Image: 'TargetFilePath',
          ParentImage: 'ActingProcessName', CommandLine: 'ActingProcessCommandLine', ParentCommandLine: 'ActingProcessCommandLine',
          ProcessName: 'ActingProcessName', ProcessId: 'ActingProcessId', ParentProcessName: 'ActingProcessName',
          ParentProcessId: 'ActingProcessId', LogonId: 'ActorSessionId', TargetObject: 'TargetFilePath', Details: 'TargetFilePath',
          SubjectUserName: 'ActorUsername', ObjectName: 'TargetFilePath', OldFilePath: 'SrcFilePath', NewFilePath: 'TargetFilePath',
          OldFileName: 'SrcFileName', NewFileName: 'TargetFileName', 'c-uri': 'TargetUrl', 'c-useragent': 'HttpUserAgent',
          'cs-method': 'NetworkApplicationProtocol', userAgent: 'HttpUserAgent', Category: 'ThreatCategory', OperationName: 'EventType',
          ProcessGuid: 'ActingProcessGuid', CreationUtcTime: 'TargetFileCreationTime',
        },
        [NETWORK]: {
          SourceIP: 'SrcIpAddr', DestinationIP: 'DstIpAddr', DestinationIp: 'DstIpAddr', SourceHostname: 'SrcHostname',
          DestinationHostname: 'DstHostname', SourcePort: 'SrcPortNumber', DestinationPort: 'DstPortNumber', SourceMAC: 'SrcMacAddr',
          DestinationMAC: 'DstMacAddr', Protocol: 'NetworkProtocol', NetworkProtocol: 'NetworkApplicationProtocol',
          User: ['SrcUsername', 'DstUsername'], Image: ['SrcProcessName', 'DstProcessName'], ProcessName: ['SrcProcessName', 'DstProcessName'],
          ProcessId: ['SrcProcessId', 'DstProcessId'], ProcessGuid: ['SrcProcessGuid', 'DstProcessGuid'], LogonId: ['SrcUserId', 'DstUserId'],
          SourceUserName: 'SrcUsername', DestinationUserName: 'DstUsername', SourceImage: 'SrcProcessName', DestinationImage: 'DstProcessName',
          SourceProcessGUID: 'SrcProcessGuid', DestinationProcessGUID: 'DstProcessGuid', SourceProcessId: 'SrcProcessId',
          DestinationProcessId: 'DstProcessId', SourceThreadId: 'SrcProcessId', DestinationThreadId: 'DstProcessId',
          SourceIsIpv6: 'NetworkProtocolVersion', DestinationIsIpv6: 'NetworkProtocolVersion', Initiated: 'NetworkDirection',
          SourcePortName: 'SrcAppName', DestinationPortName: 'DstAppName', State: 'EventSubType', IpProtocol: 'NetworkProtocol',
          BytesReceived: 'DstBytes', BytesSent: 'SrcBytes', PacketsReceived: 'DstPackets', PacketsSent: 'SrcPackets', 'c-uri': 'TargetUrl',
          'c-useragent': 'HttpUserAgent', 'cs-method': 'NetworkApplicationProtocol', 'cs-version': 'NetworkProtocolVersion',
          'cs-Cookie': 'HttpUserAgent', 'cs-Referrer': 'HttpUserAgent', 'sc-status': 'EventResultDetails', userAgent: 'HttpUserAgent',
          Category: 'ThreatCategory', OperationName: 'EventType', Action: 'DvcAction', RuleName: 'NetworkRuleName',
        },
        [PROCESS]: {
          Image: 'TargetProcessName', ParentImage: ['ParentProcessName', 'ActingProcessName'], CommandLine: 'TargetProcessCommandLine',
          ParentCommandLine: 'ActingProcessCommandLine', User: 'TargetUsername', LogonGuid: 'TargetUserSessionGuid', LogonId: 'TargetUserSessionId',
          SourceImage: 'ActingProcessName', TargetImage: 'TargetProcessName', SourceUser: 'ActorUsername', TargetUser: 'TargetUsername',
          SourceProcessId: 'ActingProcessId', TargetProcessId: 'TargetProcessId', SourceProcessGUID: 'ActingProcessGuid',
          TargetProcessGUID: 'TargetProcessGuid', ProcessId: 'TargetProcessId', ProcessGuid: 'TargetProcessGuid',
          ParentProcessId: ['ParentProcessId', 'ActingProcessId'], ParentProcessGuid: ['ParentProcessGuid', 'ActingProcessGuid'],
          ParentUser: 'ActorUsername', IntegrityLevel: 'TargetProcessIntegrityLevel', ParentProcessName: 'ParentProcessName',
          CurrentDirectory: 'TargetProcessCurrentDirectory', OriginalFileName: ['TargetProcessFileOriginalName', 'TargetProcessFilename'],
          Description: 'TargetProcessFileDescription', Product: 'TargetProcessFileProduct', Company: 'TargetProcessFileCompany',
          FileVersion: 'TargetProcessFileVersion', GrantedAccess: 'TargetProcessTokenElevation', CallTrace: 'TargetProcessInjectedAddress',
          ParentIntegrityLevel: 'ParentProcessIntegrityLevel', TerminalSessionId: 'TargetUserSessionId', sha1: 'TargetProcessSHA1',
          sha256: 'TargetProcessSHA256', md5: 'TargetProcessMD5', ProcessVersionInfoOriginalFileName: 'TargetProcessFileVersion',
          ProcessVersionInfoFileDescription: 'TargetProcessFileDescription', ProcessIntegrityLevel: 'TargetProcessIntegrityLevel',
          InitiatingProcessFolderPath: 'ActingProcessName', InitiatingProcessCommandLine: 'ActingProcessCommandLine',
        },
        [REGISTRY]: {
          Image: 'ActingProcessName', ParentImage: 'ParentProcessName', User: 'ActorUsername', TargetObject: 'RegistryKey',
          Details: 'RegistryValueData', EventType: 'EventType', ProcessId: 'ActingProcessId', ProcessGuid: 'ActingProcessGuid',
          ParentProcessId: 'ParentProcessId', ParentProcessGuid: 'ParentProcessGuid', ObjectName: 'RegistryKey', ObjectValueName: 'RegistryValue',
          ObjectType: 'RegistryValueType', ObjectValue: 'RegistryValueData', OldName: 'RegistryPreviousKey', NewName: 'RegistryKey',
          OldValueType: 'RegistryPreviousValueType', NewValueType: 'RegistryValueType', OldValue: 'RegistryPreviousValueData',
          NewValue: 'RegistryValueData', ProcessName: 'ActingProcessName', SubjectUserName: 'ActorUsername', SubjectUserSid: 'ActorUserId',
          SubjectDomainName: 'ActorScope', SubjectLogonId: 'ActorSessionId',
        },
        [WEB]: {
          'c-uri': 'Url', 'c-uri-query': 'Url', 'c-useragent': 'HttpUserAgent', 'cs-method': 'HttpRequestMethod', 'cs-version': 'HttpVersion',
          'cs-host': 'HttpHost', 'cs-Referrer': 'HttpReferrer', 'sc-status': 'HttpStatusCode', 'cs-User-Agent': 'HttpUserAgent', 'r-dns': 'HttpHost',
          request: 'Url', request_body: 'Url', request_method: 'HttpRequestMethod', request_url: 'Url', request_url_query: 'Url',
          response_status_code: 'HttpStatusCode', url_category: 'UrlCategory', url_original: 'UrlOriginal', http_request_time: 'HttpRequestTime',
          http_response_time: 'HttpResponseTime', http_content_type: 'HttpContentType', http_user_agent: 'HttpUserAgent',
          http_referrer: 'HttpReferrer', x_forwarded_for: 'HttpRequestXff', file_name: 'FileName',
          file_hash: ['FileMD5', 'FileSHA1', 'FileSHA256', 'FileSHA512'], file_size: 'FileSize', file_type: 'FileContentType',
        },
      },
      generic: {
        EventID: 'EventOriginalType', EventType: 'EventType', Product: 'EventProduct', Vendor: 'EventVendor', DeviceName: 'DvcHostname',
        DeviceHostname: 'DvcHostname', Computer: 'DvcHostname', Hostname: 'DvcHostname', IpAddress: 'DvcIpAddr', SourceSystem: 'EventProduct',
        TimeGenerated: 'EventStartTime', ProcessName: 'ActingProcessName',
      },
    },
    // As pySigma's pipeline: CurrentControlSet on RegistryKey/PreviousRegistryKey, the hives on RegistryKey/RegistryPreviousKey.
    ...registryKeySteps(['RegistryKey', 'PreviousRegistryKey'], ['RegistryKey', 'RegistryPreviousKey']),
    { kind: 'values', fields: ['EventType'], mapping: REGISTRY_ACTION_TYPES },
    { kind: 'hashes', fields: ['Hashes'], algos: ['MD5', 'SHA1', 'SHA256', 'SHA512', 'IMPHASH'], prefix: 'TargetProcess', when: { table: [PROCESS] } },
    { kind: 'hashes', fields: ['Hashes'], algos: ['MD5', 'SHA1', 'SHA256', 'SHA512'], prefix: 'TargetFile', when: { table: [FILE] } },
    { kind: 'hashes', fields: ['Hashes'], algos: ['MD5', 'SHA1', 'SHA256', 'SHA512'], prefix: 'File', when: { table: [WEB] } },
    { kind: 'drop', fields: ['Initiated'], when: { category: ['network_connection'] } },
  ],
  finish: kustoTable,
};
