/**
 * The permission catalog: `resource.verb` strings. Extend it, never rename an entry (keys and
 * custom roles in the field hold these strings).
 */
export const PERMISSIONS = [
  'agent.read',
  'agent.create',
  'agent.manage',
  'agent.execute',
  'tool.read',
  'tool.use',
  'tool.manage',
  'alert.read',
  'alert.triage',
  'alert.manage',
  'destination.read',
  'destination.manage',
  'intel.read',
  'intel.manage',
  'hunt.read',
  'hunt.manage',
  'blocklist.read',
  'blocklist.manage',
  'audit.read',
  'setting.perms.manage',
  'setting.apiKey.manage',
  'setting.users.manage',
  'setting.identityProviders.manage',
  'approval.read',
  'approval.decide',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const KNOWN = new Set<string>(PERMISSIONS);
export function isPermission(value: string): value is Permission {
  return KNOWN.has(value);
}

export const SUPER_ADMIN_ROLE = 'Super Admin';
export const ANALYST_ROLE = 'Analyst';

/** System roles created in every organization; their permission sets are fixed. */
export const SYSTEM_ROLES: ReadonlyArray<{ name: string; description: string; permissions: readonly Permission[] }> = [
  { name: SUPER_ADMIN_ROLE, description: 'Every permission.', permissions: PERMISSIONS },
  {
    name: ANALYST_ROLE,
    description: 'Reads everything, runs agents, uses tools and triages alerts.',
    permissions: [
      ...PERMISSIONS.filter((p) => p.endsWith('.read')),
      'agent.execute',
      'tool.use',
      'alert.triage',
    ],
  },
];

/** The permissions of `required` that `granted` lacks, in the order they were asked for. */
export function missingPermissions(granted: ReadonlySet<string>, required: readonly Permission[]): Permission[] {
  return required.filter((p) => !granted.has(p));
}
