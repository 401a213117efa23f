import type { PipelineDef } from '../sigma-pipeline.fns.js';
import { kustoTable, REGISTRY_ACTION_TYPES, registryKeySteps } from './kusto-common.fns.js';

/**
 * Microsoft Defender XDR advanced hunting (pySigma's `microsoft_xdr_pipeline`, also named
 * `microsoft_365_defender_pipeline`): the Device* table of the rule's category (or, without
 * one, of its first `sel*` EventID), Sysmon field names as that table's columns, and the values
 * Defender stores differently (full registry hive names, ActionType, DOMAIN\user split in two
 * columns, Hashes as MD5/SHA1/SHA256, ParentImage as the parent's file name).
 */

const DEVICE_FILE = 'DeviceFileEvents';
const DEVICE_REGISTRY = 'DeviceRegistryEvents';

export const microsoftXdr: PipelineDef = {
  name: 'microsoft_xdr_pipeline',
  target: 'kusto',
  description: 'Microsoft Defender XDR advanced hunting: Device* tables and columns',
  table: {
    byCategory: {
      process_creation: 'DeviceProcessEvents',
      image_load: 'DeviceImageLoadEvents',
      file_access: DEVICE_FILE,
      file_change: DEVICE_FILE,
      file_delete: DEVICE_FILE,
      file_event: DEVICE_FILE,
      file_rename: DEVICE_FILE,
      registry_add: DEVICE_REGISTRY,
      registry_delete: DEVICE_REGISTRY,
      registry_event: DEVICE_REGISTRY,
      registry_set: DEVICE_REGISTRY,
      network_connection: 'DeviceNetworkEvents',
    },
    byEventFamily: {
      process: 'DeviceProcessEvents',
      logon: 'DeviceLogonEvents',
      registry: DEVICE_REGISTRY,
      file: DEVICE_FILE,
      network: 'DeviceNetworkEvents',
      image_load: 'DeviceImageLoadEvents',
      pipe: 'DeviceEvents',
      wmi: 'DeviceEvents',
    },
    refusal: 'rule category not supported by the Microsoft XDR pipeline (it maps process_creation, image_load, file_*, registry_* and network_connection, or a Windows EventID of those families)',
  },
  steps: [
    // The table already says which event it is.
    { kind: 'drop', fields: ['EventID', 'EventCode', 'ObjectType'] },
    {
      kind: 'mapByTable',
      tables: {
        DeviceProcessEvents: {
          ProcessId: 'ProcessId',
          Image: 'FolderPath',
          FileVersion: 'ProcessVersionInfoProductVersion',
          Description: 'ProcessVersionInfoFileDescription',
          Product: 'ProcessVersionInfoProductName',
          Company: 'ProcessVersionInfoCompanyName',
          OriginalFileName: 'ProcessVersionInfoOriginalFileName',
          CommandLine: 'ProcessCommandLine',
          User: 'AccountName',
          LogonId: 'LogonId',
          IntegrityLevel: 'ProcessIntegrityLevel',
          sha1: 'SHA1',
          sha256: 'SHA256',
          md5: 'MD5',
          ParentProcessId: 'InitiatingProcessId',
          ParentImage: 'InitiatingProcessFolderPath',
          ParentCommandLine: 'InitiatingProcessCommandLine',
          ParentUser: 'InitiatingProcessAccountName',
          GrandParentImage: 'InitiatingProcessParentFileName',
        },
        DeviceImageLoadEvents: {
          ProcessId: 'InitiatingProcessId',
          Image: 'InitiatingProcessFolderPath',
          ImageLoaded: 'FolderPath',
          FileVersion: 'InitiatingProcessVersionInfoProductVersion',
          Description: 'InitiatingProcessVersionInfoFileDescription',
          Product: 'InitiatingProcessVersionInfoProductName',
          Company: 'InitiatingProcessVersionInfoCompanyName',
          OriginalFileName: 'InitiatingProcessVersionInfoOriginalFileName',
          sha1: 'SHA1',
          sha256: 'SHA256',
          md5: 'MD5',
          User: 'InitiatingProcessAccountName',
        },
        [DEVICE_FILE]: {
          ProcessId: 'InitiatingProcessId',
          Image: 'InitiatingProcessFolderPath',
          TargetFilename: 'FolderPath',
          User: 'RequestAccountName',
          sha1: 'SHA1',
          sha256: 'SHA256',
          md5: 'MD5',
          ObjectName: 'FolderPath',
          IntegrityLevel: 'InitiatingProcessIntegrityLevel',
        },
        DeviceNetworkEvents: {
          ProcessId: 'InitiatingProcessId',
          Image: 'InitiatingProcessFolderPath',
          User: 'InitiatingProcessAccountName',
          Protocol: 'Protocol',
          SourceIp: 'LocalIP',
          SourceHostname: 'DeviceName',
          SourcePort: 'LocalPort',
          DestinationIp: 'RemoteIP',
          DestinationHostname: 'RemoteUrl',
          DestinationPort: 'RemotePort',
        },
        [DEVICE_REGISTRY]: {
          EventType: 'ActionType',
          ProcessId: 'InitiatingProcessId',
          Image: 'InitiatingProcessFolderPath',
          TargetObject: 'RegistryKey',
          Details: 'RegistryValueData',
          User: 'InitiatingProcessAccountName',
          ObjectName: 'RegistryKey',
        },
      },
      // Fields of the initiating process exist in every Device* table.
      generic: {
        EventType: 'ActionType',
        User: 'InitiatingProcessAccountName',
        CommandLine: 'InitiatingProcessCommandLine',
        Image: 'InitiatingProcessFolderPath',
        ProcessName: 'InitiatingProcessFolderPath',
        SourceImage: 'InitiatingProcessFolderPath',
        ProcessId: 'InitiatingProcessId',
        md5: 'InitiatingProcessMD5',
        sha1: 'InitiatingProcessSHA1',
        sha256: 'InitiatingProcessSHA256',
        ParentProcessId: 'InitiatingProcessParentId',
        ParentCommandLine: 'InitiatingProcessParentCommandLine',
        Company: 'InitiatingProcessVersionInfoCompanyName',
        Description: 'InitiatingProcessVersionInfoFileDescription',
        OriginalFileName: 'InitiatingProcessVersionInfoOriginalFileName',
        Product: 'InitiatingProcessVersionInfoProductName',
      },
    },
    // No table has the parent's folder path: outside process creation, ParentImage is the parent's file name.
    { kind: 'map', mapping: { ParentImage: 'InitiatingProcessParentFileName' }, when: { category: ['process_creation'], not: true } },
    { kind: 'basename', fields: ['InitiatingProcessParentFileName'], when: { category: ['process_creation'], not: true } },
    ...registryKeySteps(['RegistryKey', 'PreviousRegistryKey']),
    { kind: 'values', fields: ['ActionType'], mapping: REGISTRY_ACTION_TYPES },
    {
      kind: 'splitDomainUser',
      fields: ['AccountName', 'InitiatingProcessAccountName'],
      domains: { AccountName: 'AccountDomain', RequestAccountName: 'RequestAccountDomain', InitiatingProcessAccountName: 'InitiatingProcessAccountDomain' },
      fallback: 'InitiatingProcessAccountDomain',
    },
    { kind: 'hashes', fields: ['Hashes'], algos: ['MD5', 'SHA1', 'SHA256'], prefix: '' },
    { kind: 'drop', fields: ['Initiated'], when: { category: ['network_connection'] } },
  ],
  finish: kustoTable,
};

/** The pipeline's former name: the same mappings. */
export const microsoft365Defender: PipelineDef = { ...microsoftXdr, name: 'microsoft_365_defender_pipeline' };
