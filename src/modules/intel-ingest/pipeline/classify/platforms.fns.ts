/**
 * Platforms an item concerns, in one small vocabulary shared by classification and the items
 * `platform` filter. Pure, no I/O.
 */

export const PLATFORMS = ['Windows', 'Linux', 'macOS', 'Android', 'iOS', 'Cloud', 'Containers', 'Network Devices', 'ESXi'] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * Text cues per platform. Case-sensitive where the lower-case word is ordinary English or another
 * product ("windows", Cisco "IOS"), case-insensitive otherwise.
 */
const CUES: ReadonlyArray<[Platform, RegExp]> = [
  ['Windows', /\b(?:Windows|Win32|Win64|WinAPI|Active Directory)\b/],
  ['Linux', /\b(?:linux|ubuntu|debian|centos|rhel|red hat enterprise linux|fedora|suse|alpine linux)\b/i],
  ['macOS', /\b(?:macos|mac os(?: x)?|os x|osx)\b/i],
  ['Android', /\bandroid\b/i],
  ['iOS', /\b(?:iOS|iPadOS|iPhones?|iPads?)\b/],
  ['Cloud', /\b(?:AWS|Amazon Web Services|Azure|Entra ID|Microsoft 365|Office 365|M365|GCP|Google Cloud|Google Workspace|Okta|SaaS|IaaS|EC2|S3 buckets?|cloud (?:environments?|tenants?|accounts?|infrastructure|workloads?))\b/],
  ['Containers', /\b(?:kubernetes|k8s|docker|containerd|openshift|container (?:images?|registry|registries|escape)|containeri[sz]ed)\b/i],
  ['Network Devices', /\b(?:routers?|network devices?|edge devices?|network appliances?|VPN (?:appliances?|gateways?|devices?)|Cisco IOS(?: XE| XR)?|IOS XE|FortiOS|FortiGate|PAN-OS|Junos|SonicOS|NetScaler|Citrix ADC|Connect Secure)\b/],
  ['ESXi', /\b(?:ESXi|VMware ESX)\b/i],
];

/** ATT&CK `x_mitre_platforms` values → this vocabulary (PRE and None map to nothing). */
const ATTACK_PLATFORMS: Readonly<Record<string, Platform>> = {
  windows: 'Windows',
  linux: 'Linux',
  macos: 'macOS',
  android: 'Android',
  ios: 'iOS',
  iaas: 'Cloud',
  saas: 'Cloud',
  'office 365': 'Cloud',
  'office suite': 'Cloud',
  'identity provider': 'Cloud',
  'azure ad': 'Cloud',
  'google workspace': 'Cloud',
  containers: 'Containers',
  'network devices': 'Network Devices',
  network: 'Network Devices',
  esxi: 'ESXi',
};

export function platformFromAttack(name: string): Platform | null {
  return ATTACK_PLATFORMS[name.trim().toLowerCase()] ?? null;
}

export function platformsFromText(text: string): Set<Platform> {
  const out = new Set<Platform>();
  for (const [platform, re] of CUES) if (re.test(text)) out.add(platform);
  return out;
}

/**
 * The one platform a technique is specific to, or null: a technique listed for several platforms
 * (Command and Scripting Interpreter) says nothing about the item's platform; one listed only for
 * Windows (PowerShell, LSASS Memory) does.
 */
export function platformOfTechnique(platforms: readonly string[]): Platform | null {
  const mapped = new Set(platforms.map(platformFromAttack).filter((p): p is Platform => p !== null));
  return mapped.size === 1 ? ([...mapped][0] as Platform) : null;
}

export function sortPlatforms(platforms: Iterable<Platform>): Platform[] {
  return [...new Set(platforms)].sort((a, b) => PLATFORMS.indexOf(a) - PLATFORMS.indexOf(b));
}
