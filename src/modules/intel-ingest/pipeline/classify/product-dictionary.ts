/**
 * Well-known vendors and products recognised in advisory text, with their CPE vendor/product ids.
 * Standalone products are specific enough to be recognised without the vendor's name ("FortiOS");
 * versioned ones need a version after them ("Chrome 120.0"); the rest need the vendor ("Microsoft Edge").
 * Single-word names are matched case-sensitively, longer ones case-insensitively.
 */

export interface KnownProduct {
  id: string;
  names: string[];
  /**
   * When the name alone (without the vendor's) identifies the product: `standalone` always,
   * `versioned` only when a version follows ("Chrome 120.0.6099.109", "Windows 11"), `vendor` never.
   */
  match: 'standalone' | 'versioned' | 'vendor';
}

export interface KnownVendor {
  id: string;
  names: string[];
  products: KnownProduct[];
}

const p = (id: string, names: string[], mode: boolean | 'versioned' = false): KnownProduct => ({
  id,
  names,
  match: mode === true ? 'standalone' : mode === false ? 'vendor' : 'versioned',
});

export const KNOWN_VENDORS: readonly KnownVendor[] = [
  { id: 'microsoft', names: ['Microsoft'], products: [
    p('windows_server', ['Windows Server'], true), p('windows', ['Windows'], 'versioned'), p('exchange_server', ['Exchange Server'], true),
    p('exchange_server', ['Exchange'], 'versioned'), p('sharepoint_server', ['SharePoint Server'], true), p('sharepoint_server', ['SharePoint'], 'versioned'),
    p('office', ['Office'], 'versioned'), p('outlook', ['Outlook'], 'versioned'), p('edge', ['Edge']), p('internet_explorer', ['Internet Explorer'], true),
    p('sql_server', ['SQL Server'], 'versioned'), p('teams', ['Teams']), p('mshtml', ['MSHTML'], true), p('win32k', ['Win32k'], true),
    p('windows_smartscreen', ['SmartScreen'], 'versioned'), p('defender', ['Defender']), p('365_apps', ['365 Apps']),
  ] },
  { id: 'cisco', names: ['Cisco'], products: [
    p('ios_xe', ['IOS XE'], true), p('ios_xr', ['IOS XR'], true), p('ios', ['IOS'], 'versioned'), p('nx-os', ['NX-OS'], true),
    p('adaptive_security_appliance_software', ['Adaptive Security Appliance', 'ASA'], 'versioned'),
    p('firepower_threat_defense', ['Firepower Threat Defense', 'FTD'], 'versioned'), p('anyconnect_secure_mobility_client', ['AnyConnect'], true),
    p('identity_services_engine', ['Identity Services Engine', 'ISE']), p('webex', ['Webex'], true),
  ] },
  { id: 'fortinet', names: ['Fortinet'], products: [
    p('fortios', ['FortiOS'], true), p('fortiproxy', ['FortiProxy'], true), p('fortigate', ['FortiGate'], true),
    p('fortiweb', ['FortiWeb'], true), p('fortimanager', ['FortiManager'], true), p('fortianalyzer', ['FortiAnalyzer'], true),
    p('forticlient_enterprise_management_server', ['FortiClient EMS', 'FortiClientEMS'], true), p('forticlient', ['FortiClient'], true),
    p('fortisiem', ['FortiSIEM'], true), p('fortiswitch', ['FortiSwitch'], true), p('fortinac', ['FortiNAC'], true),
  ] },
  { id: 'paloaltonetworks', names: ['Palo Alto Networks', 'Palo Alto'], products: [
    p('pan-os', ['PAN-OS'], true), p('globalprotect', ['GlobalProtect'], true), p('expedition', ['Expedition']),
    p('cortex_xdr_agent', ['Cortex XDR'], true),
  ] },
  { id: 'ivanti', names: ['Ivanti'], products: [
    p('connect_secure', ['Connect Secure'], true), p('policy_secure', ['Policy Secure'], true),
    p('endpoint_manager_mobile', ['Endpoint Manager Mobile', 'EPMM'], true), p('endpoint_manager', ['Endpoint Manager', 'EPM'], 'versioned'),
    p('neurons_for_zero-trust_access', ['Neurons for ZTA'], true), p('cloud_services_appliance', ['Cloud Services Appliance', 'CSA']),
    p('sentry', ['Sentry']),
  ] },
  { id: 'pulsesecure', names: ['Pulse Secure'], products: [p('pulse_connect_secure', ['Pulse Connect Secure'], true)] },
  { id: 'citrix', names: ['Citrix'], products: [
    p('netscaler_application_delivery_controller', ['NetScaler ADC'], true), p('netscaler_application_delivery_controller', ['ADC']),
    p('netscaler_gateway', ['NetScaler Gateway'], true), p('netscaler_gateway', ['Gateway']),
    p('sharefile', ['ShareFile'], true), p('virtual_apps_and_desktops', ['Virtual Apps and Desktops'], true),
  ] },
  { id: 'vmware', names: ['VMware', 'Broadcom VMware'], products: [
    p('vcenter_server', ['vCenter Server', 'vCenter'], true), p('esxi', ['ESXi'], true), p('workspace_one_access', ['Workspace ONE Access'], true),
    p('horizon', ['Horizon']), p('aria_operations_for_networks', ['Aria Operations for Networks'], true), p('tools', ['Tools']),
  ] },
  { id: 'atlassian', names: ['Atlassian'], products: [
    p('confluence_data_center', ['Confluence Data Center'], true), p('confluence_server', ['Confluence Server'], true),
    p('confluence', ['Confluence'], true), p('jira_service_management', ['Jira Service Management'], true), p('jira', ['Jira'], true),
    p('bitbucket', ['Bitbucket'], true),
  ] },
  { id: 'apache', names: ['Apache', 'Apache Software Foundation'], products: [
    p('http_server', ['HTTP Server'], 'versioned'), p('struts', ['Struts'], 'versioned'), p('tomcat', ['Tomcat'], true), p('log4j', ['Log4j', 'Log4j2'], true),
    p('activemq', ['ActiveMQ'], true), p('ofbiz', ['OFBiz'], true), p('solr', ['Solr'], true), p('superset', ['Superset'], 'versioned'),
  ] },
  { id: 'oracle', names: ['Oracle'], products: [
    p('weblogic_server', ['WebLogic Server', 'WebLogic'], true), p('e-business_suite', ['E-Business Suite'], true),
    p('database_server', ['Database Server', 'Database']), p('java_se', ['Java SE'], true), p('mysql', ['MySQL'], true),
  ] },
  { id: 'sap', names: ['SAP'], products: [
    p('netweaver', ['NetWeaver'], true), p('businessobjects', ['BusinessObjects'], true), p('s/4hana', ['S/4HANA'], true),
  ] },
  { id: 'adobe', names: ['Adobe'], products: [
    p('acrobat_reader', ['Acrobat Reader'], true), p('acrobat', ['Acrobat'], 'versioned'), p('coldfusion', ['ColdFusion'], true),
    p('commerce', ['Commerce']), p('magento', ['Magento'], true), p('flash_player', ['Flash Player'], true),
    p('experience_manager', ['Experience Manager'], true),
  ] },
  { id: 'google', names: ['Google'], products: [p('chrome', ['Chrome'], 'versioned'), p('android', ['Android'], 'versioned')] },
  { id: 'apple', names: ['Apple'], products: [
    p('iphone_os', ['iOS'], 'versioned'), p('ipados', ['iPadOS'], true), p('macos', ['macOS'], 'versioned'), p('safari', ['Safari'], 'versioned'), p('webkit', ['WebKit'], true),
  ] },
  { id: 'linux', names: ['Linux'], products: [p('linux_kernel', ['kernel', 'Kernel'])] },
  { id: 'juniper', names: ['Juniper Networks', 'Juniper'], products: [
    p('junos_os_evolved', ['Junos OS Evolved'], true), p('junos', ['Junos OS', 'Junos'], true),
  ] },
  { id: 'f5', names: ['F5 Networks', 'F5'], products: [p('big-ip', ['BIG-IP'], true), p('nginx', ['NGINX'], 'versioned')] },
  { id: 'sonicwall', names: ['SonicWall', 'SonicWALL'], products: [p('sonicos', ['SonicOS'], true), p('sma_100', ['SMA 100', 'SMA'], 'versioned')] },
  { id: 'zyxel', names: ['Zyxel', 'ZyXEL'], products: [] },
  { id: 'progress', names: ['Progress Software', 'Progress'], products: [
    p('moveit_transfer', ['MOVEit Transfer'], true), p('moveit_cloud', ['MOVEit Cloud'], true), p('moveit', ['MOVEit'], true),
    p('ws_ftp_server', ['WS_FTP Server'], true), p('whatsup_gold', ['WhatsUp Gold'], true), p('telerik_ui', ['Telerik UI'], true),
  ] },
  { id: 'connectwise', names: ['ConnectWise'], products: [p('screenconnect', ['ScreenConnect'], true)] },
  { id: 'solarwinds', names: ['SolarWinds'], products: [
    p('serv-u', ['Serv-U'], true), p('web_help_desk', ['Web Help Desk'], true), p('orion_platform', ['Orion Platform', 'Orion']),
  ] },
  { id: 'veeam', names: ['Veeam'], products: [p('backup_&_replication', ['Backup & Replication', 'Backup and Replication'])] },
  { id: 'gitlab', names: ['GitLab'], products: [p('gitlab', ['GitLab'], true)] },
  { id: 'jenkins', names: ['Jenkins'], products: [p('jenkins', ['Jenkins'], true)] },
  { id: 'barracuda', names: ['Barracuda Networks', 'Barracuda'], products: [p('email_security_gateway', ['Email Security Gateway', 'ESG'])] },
  { id: 'checkpoint', names: ['Check Point'], products: [p('quantum_security_gateway', ['Quantum Security Gateway'], true)] },
  { id: 'crushftp', names: ['CrushFTP'], products: [p('crushftp', ['CrushFTP'], true)] },
  { id: 'mozilla', names: ['Mozilla'], products: [p('firefox', ['Firefox'], 'versioned'), p('thunderbird', ['Thunderbird'], true)] },
  { id: 'zimbra', names: ['Zimbra'], products: [p('collaboration', ['Collaboration Suite', 'Collaboration'])] },
  { id: 'sophos', names: ['Sophos'], products: [p('firewall', ['Firewall'])] },
  { id: 'watchguard', names: ['WatchGuard'], products: [p('fireware_os', ['Fireware OS', 'Fireware'], true)] },
  { id: 'qnap', names: ['QNAP'], products: [p('qts', ['QTS'], 'versioned')] },
  { id: 'dlink', names: ['D-Link'], products: [] },
  { id: 'tp-link', names: ['TP-Link'], products: [] },
  { id: 'netgear', names: ['NETGEAR', 'Netgear'], products: [] },
  { id: 'synology', names: ['Synology'], products: [] },
  { id: 'trendmicro', names: ['Trend Micro'], products: [p('apex_one', ['Apex One'], true)] },
  // OpenSSH advisories name the daemon ("sshd before 9.8p1") as often as the product.
  { id: 'openbsd', names: ['OpenBSD'], products: [p('openssh', ['OpenSSH'], true), p('openssh', ['sshd'], 'versioned')] },
];

/** Vendor display names and CVE-record spellings → CPE vendor id. */
export function vendorId(name: string): string {
  const lower = name.trim().toLowerCase();
  const collapsed = lower.replace(/[\s_-]+/g, '');
  for (const v of KNOWN_VENDORS) {
    if (v.id === lower || v.id === collapsed) return v.id;
    if (v.names.some((n) => n.toLowerCase() === lower || n.toLowerCase().replace(/[\s_-]+/g, '') === collapsed)) return v.id;
  }
  return lower.replace(/\s+/g, '_');
}

/**
 * A product name as CVE records write it → CPE product id: the dictionary id when it is a known
 * product of that vendor (with or without the vendor's name in front), else the name in CPE form.
 */
export function productId(vendor: string, name: string): string {
  const v = KNOWN_VENDORS.find((x) => x.id === vendor);
  const plain = name.trim().replace(/_/g, ' ').replace(/\s+/g, ' ');
  const lower = plain.toLowerCase();
  if (v) {
    const withoutVendor = v.names.reduce((acc, n) => (acc.startsWith(`${n.toLowerCase()} `) ? acc.slice(n.length + 1) : acc), lower);
    for (const prod of v.products) {
      if (prod.id === lower.replace(/ /g, '_')) return prod.id;
      if (prod.names.some((n) => n.toLowerCase() === lower || n.toLowerCase() === withoutVendor)) return prod.id;
    }
  }
  return lower.replace(/ /g, '_');
}
