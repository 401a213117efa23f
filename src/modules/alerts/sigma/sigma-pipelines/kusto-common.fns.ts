import type { PipelineState, Step } from '../sigma-pipeline.fns.js';

/**
 * What the Kusto pipelines share (AttackIQ's pySigma-backend-kusto, LGPL-3.0: the facts of its
 * mappings, not its code): registry hive abbreviations written out as Defender and Sentinel
 * store them, Sysmon's registry EventType values as `ActionType` values, and the query's table
 * in front of the condition.
 */

/** `HKLM\…` as the tables store it; CurrentControlSet first, or the HKLM step would take it. */
export function registryKeySteps(fields: string[], otherFields = fields): Step[] {
  return [
    { kind: 'replace', fields, regex: /^HKLM\\SYSTEM\\CurrentControlSet/i, replacement: 'HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet001' },
    { kind: 'replace', fields: otherFields, regex: /^HKLM/i, replacement: 'HKEY_LOCAL_MACHINE' },
    { kind: 'replace', fields: otherFields, regex: /^HKU/i, replacement: 'HKEY_USERS' },
    { kind: 'replace', fields: otherFields, regex: /^HKCR/i, replacement: 'HKEY_LOCAL_MACHINE\\CLASSES' },
  ];
}

/** Sysmon's registry EventType → the tables' ActionType (a list: either value). */
export const REGISTRY_ACTION_TYPES = {
  CreateKey: 'RegistryKeyCreated',
  DeleteKey: ['RegistryKeyDeleted', 'RegistryValueDeleted'],
  SetValue: 'RegistryValueSet',
  RenameKey: ['RegistryValueSet', 'RegistryKeyCreated'],
};

/** Kusto queries name their table first. */
export const kustoTable = (query: string, state: PipelineState) => `${state.table}\n| where ${query}`;

export const WINDOWS_CATEGORIES = [
  'process_creation', 'image_load', 'file_access', 'file_change', 'file_delete', 'file_event', 'file_rename',
  'registry_add', 'registry_delete', 'registry_event', 'registry_set', 'network_connection',
] as const;
