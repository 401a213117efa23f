import type { PipelineDef } from '../sigma-pipeline.fns.js';
import { kustoTable, REGISTRY_ACTION_TYPES, registryKeySteps, WINDOWS_CATEGORIES } from './kusto-common.fns.js';

/**
 * Azure Monitor / Log Analytics (pySigma's `azure_monitor_pipeline`): Windows rules run on the
 * `SecurityEvent` table with its Windows security-log column names. EventID stays a column.
 */

const SECURITY_EVENT = 'SecurityEvent';

export const azureMonitor: PipelineDef = {
  name: 'azure_monitor_pipeline',
  target: 'kusto',
  description: 'Azure Monitor (Log Analytics): the SecurityEvent table and its columns',
  table: {
    byCategory: Object.fromEntries(WINDOWS_CATEGORIES.map((c) => [c, SECURITY_EVENT])),
    byEventFamily: Object.fromEntries(['process', 'logon', 'registry', 'file', 'network', 'image_load', 'pipe', 'wmi'].map((f) => [f, SECURITY_EVENT])),
    refusal: 'rule category not supported by the Azure Monitor pipeline (it maps Windows process_creation, image_load, file_*, registry_* and network_connection, or a Windows EventID of those families)',
  },
  steps: [
    {
      kind: 'mapByTable',
      tables: {
        [SECURITY_EVENT]: {
          CommandLine: 'CommandLine', Image: 'NewProcessName', ParentImage: 'ParentProcessName', User: 'SubjectUserName',
          TargetFilename: 'ObjectName', SourceIp: 'IpAddress', DestinationIp: 'DestinationIp', DestinationPort: 'DestinationPort',
          SourcePort: 'SourcePort', SourceHostname: 'WorkstationName', DestinationHostname: 'DestinationHostname', EventID: 'EventID',
          ProcessId: 'NewProcessId', ProcessName: 'NewProcessName', LogonType: 'LogonType', TargetUserName: 'TargetUserName',
          TargetDomainName: 'TargetDomainName', TargetLogonId: 'TargetLogonId', Status: 'Status', SubStatus: 'SubStatus',
          ObjectType: 'ObjectType', ShareName: 'ShareName', AccessMask: 'AccessMask', ServiceName: 'ServiceName',
          TicketOptions: 'TicketOptions', TicketEncryptionType: 'TicketEncryptionType', TransmittedServices: 'TransmittedServices',
          WorkstationName: 'WorkstationName', LogonProcessName: 'LogonProcessName', LogonGuid: 'LogonGuid', Category: 'EventSourceName',
          Hashes: 'FileHash', TargetObject: 'ObjectName', AccessList: 'AccessList',
        },
      },
      generic: {},
    },
    { kind: 'drop', fields: ['ObjectType'] },
    ...registryKeySteps(['RegistryKey', 'RegistryPreviousKey', 'ObjectName']),
    { kind: 'values', fields: ['EventType'], mapping: REGISTRY_ACTION_TYPES },
    // SecurityEvent has one FileHash column: the digests without their algorithm.
    { kind: 'hashes', fields: ['FileHash'], algos: ['MD5', 'SHA1', 'SHA256'], prefix: 'FileHash', dropAlgo: true, when: { table: [SECURITY_EVENT] } },
    { kind: 'hashes', fields: ['Hashes'], algos: ['MD5', 'SHA1', 'SHA256'], prefix: '', when: { table: [SECURITY_EVENT], not: true } },
    { kind: 'drop', fields: ['Initiated'], when: { category: ['network_connection'] } },
  ],
  finish: kustoTable,
};
