/**
 * Built-in sources: real, public, useful. Each organization subscribes or not
 * (`subscriptionEnabled`); the operator's global switch is `sourceEnabled`. Addresses were
 * checked against the publishers' documentation; keep `key` stable (rows are upserted by it).
 */
export interface BuiltinSource {
  key: string;
  name: string;
  displayName: string;
  description: string;
  kind: 'rss' | 'api';
  apiType?: 'misp' | 'misp_feed' | 'taxii' | 'osv' | 'cisa_kev' | 'epss' | 'nvd' | 'csaf';
  feedUrl?: string;
  serverUrl?: string;
  collectionId?: string;
  scheduleCron: string;
  maxEntries: number;
  /** Subscribed by default in a new organization. */
  defaultSubscribed: boolean;
}

export const BUILTIN_SOURCES: readonly BuiltinSource[] = [
  {
    key: 'cisa-advisories',
    name: 'cisa-advisories',
    displayName: 'CISA Cybersecurity Advisories',
    description: 'Alerts, advisories and ICS advisories from the US Cybersecurity and Infrastructure Security Agency.',
    kind: 'rss',
    feedUrl: 'https://www.cisa.gov/cybersecurity-advisories/all.xml',
    scheduleCron: '7 * * * *',
    maxEntries: 200,
    defaultSubscribed: true,
  },
  {
    key: 'circl-osint',
    name: 'circl-osint',
    displayName: 'CIRCL OSINT MISP feed',
    description: 'Curated OSINT events published by CIRCL (Computer Incident Response Center Luxembourg) in the MISP feed format.',
    kind: 'api',
    apiType: 'misp_feed',
    serverUrl: 'https://www.circl.lu/doc/misp/feed-osint/',
    scheduleCron: '23 */6 * * *',
    maxEntries: 500,
    defaultSubscribed: true,
  },
  {
    key: 'threatfox',
    name: 'threatfox',
    displayName: 'abuse.ch ThreatFox',
    description: 'Indicators of compromise associated with malware, shared by the community on abuse.ch ThreatFox (MISP feed).',
    kind: 'api',
    apiType: 'misp_feed',
    serverUrl: 'https://threatfox.abuse.ch/downloads/misp/',
    scheduleCron: '13 * * * *',
    maxEntries: 500,
    defaultSubscribed: true,
  },
  {
    key: 'urlhaus',
    name: 'urlhaus',
    displayName: 'abuse.ch URLhaus',
    description: 'Malicious URLs used for malware distribution, from abuse.ch URLhaus (MISP feed).',
    kind: 'api',
    apiType: 'misp_feed',
    serverUrl: 'https://urlhaus.abuse.ch/downloads/misp/',
    scheduleCron: '43 * * * *',
    maxEntries: 500,
    defaultSubscribed: false,
  },
  {
    key: 'mitre-attack-enterprise',
    name: 'mitre-attack-enterprise',
    displayName: 'MITRE ATT&CK (Enterprise)',
    description: 'The ATT&CK Enterprise knowledge base (techniques, groups, software) from MITRE\'s TAXII 2.1 server.',
    kind: 'api',
    apiType: 'taxii',
    serverUrl: 'https://attack-taxii.mitre.org/api/v21/',
    collectionId: 'x-mitre-collection--1f5f1533-f617-4ca8-9ab4-6a02367fa019',
    scheduleCron: '41 4 * * 1',
    maxEntries: 5000,
    defaultSubscribed: true,
  },
  {
    key: 'talos',
    name: 'talos',
    displayName: 'Cisco Talos Intelligence Blog',
    description: 'Threat research from Cisco Talos.',
    kind: 'rss',
    feedUrl: 'https://blog.talosintelligence.com/rss/',
    scheduleCron: '17 * * * *',
    maxEntries: 100,
    defaultSubscribed: true,
  },
  {
    key: 'unit42',
    name: 'unit42',
    displayName: 'Palo Alto Networks Unit 42',
    description: 'Threat research from Unit 42.',
    kind: 'rss',
    feedUrl: 'https://unit42.paloaltonetworks.com/feed/',
    scheduleCron: '27 * * * *',
    maxEntries: 100,
    defaultSubscribed: true,
  },
  {
    key: 'microsoft-security',
    name: 'microsoft-security',
    displayName: 'Microsoft Security Blog',
    description: 'Threat intelligence and research from Microsoft.',
    kind: 'rss',
    feedUrl: 'https://www.microsoft.com/en-us/security/blog/feed/',
    scheduleCron: '37 * * * *',
    maxEntries: 100,
    defaultSubscribed: true,
  },
  {
    key: 'securelist',
    name: 'securelist',
    displayName: 'Kaspersky Securelist',
    description: 'Threat research from Kaspersky GReAT.',
    kind: 'rss',
    feedUrl: 'https://securelist.com/feed/',
    scheduleCron: '47 * * * *',
    maxEntries: 100,
    defaultSubscribed: false,
  },
  {
    key: 'dfir-report',
    name: 'dfir-report',
    displayName: 'The DFIR Report',
    description: 'Intrusion case studies with indicators and ATT&CK mappings.',
    kind: 'rss',
    feedUrl: 'https://thedfirreport.com/feed/',
    scheduleCron: '57 */3 * * *',
    maxEntries: 50,
    defaultSubscribed: true,
  },
  {
    key: 'sans-isc',
    name: 'sans-isc',
    displayName: 'SANS Internet Storm Center',
    description: 'Daily diaries from the SANS Internet Storm Center handlers.',
    kind: 'rss',
    feedUrl: 'https://isc.sans.edu/rssfeed_full.xml',
    scheduleCron: '3 * * * *',
    maxEntries: 100,
    defaultSubscribed: false,
  },
];
