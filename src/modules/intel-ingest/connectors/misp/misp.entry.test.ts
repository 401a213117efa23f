import { describe, expect, it } from 'vitest';
import { entryFromMispEvent, parseRestSearchResponse, type MispEvent } from './misp.fns.js';

const U1 = '5758ebf5-c898-48e6-9fe9-5665c0a83866';
const CTX = { serverUrl: null, publisher: null };

let attrSeq = 0;
function attr(type: string, value: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  attrSeq += 1;
  return { type, value, uuid: `attr-${attrSeq}`, to_ids: true, deleted: false, category: 'Other', ...extra };
}

function event(extra: Record<string, unknown> = {}): MispEvent {
  const [e] = parseRestSearchResponse({ response: [{ Event: { uuid: U1, id: '42', info: 'An event', ...extra } }] });
  if (!e) throw new Error('no event');
  return e;
}

/** [type, value] pairs of the indicators one to_ids attribute yields. */
function typed(type: string, value: string): Array<[string, string]> {
  return entryFromMispEvent(event({ Attribute: [attr(type, value)] }), CTX).indicators.map((i) => [i.type, i.value]);
}

describe('entryFromMispEvent: entry fields', () => {
  it('maps the event metadata', () => {
    const e = event({
      info: '  Ransomware - Xorist ',
      publish_timestamp: '1472548231',
      timestamp: 1472541011,
      date: '2016-08-29',
      Orgc: { name: 'CIRCL', uuid: 'x' },
    });
    const entry = entryFromMispEvent(e, { serverUrl: 'https://misp.example.org/', publisher: 'My MISP' });
    expect(entry).toMatchObject({
      externalId: U1,
      title: 'Ransomware - Xorist',
      url: 'https://misp.example.org/events/view/42',
      publisher: 'CIRCL',
      publishedAt: '2016-08-30T09:10:31.000Z',
      updatedAt: '2016-08-30T07:10:11.000Z',
      language: null,
      contentHtml: null,
      contentText: 'Ransomware - Xorist',
      indicators: [],
      references: [],
      tags: [],
    });
    expect(entry.raw).toBe(e);
  });

  it('falls back: date when unpublished, ctx.publisher, first link as url, uuid in the view url', () => {
    const e = event({
      id: undefined,
      publish_timestamp: '0',
      date: '2017-12-21',
      Orgc: { name: '' },
      Attribute: [attr('link', 'javascript:alert(1)', { to_ids: false }), attr('link', 'https://blog.example/post', { to_ids: false })],
    });
    const entry = entryFromMispEvent(e, { serverUrl: null, publisher: 'CIRCL OSINT feed' });
    expect(entry.publishedAt).toBe('2017-12-21T00:00:00.000Z');
    expect(entry.updatedAt).toBeNull();
    expect(entry.publisher).toBe('CIRCL OSINT feed');
    expect(entry.url).toBe('https://blog.example/post');
    expect(entryFromMispEvent(e, { serverUrl: 'https://misp.local', publisher: null }).url).toBe(`https://misp.local/events/view/${U1}`);
    const bare = entryFromMispEvent(event({ info: undefined, date: 'not a date' }), CTX);
    expect(bare).toMatchObject({ url: null, publisher: null, publishedAt: null, title: `MISP event ${U1}` });
  });

  it('builds contentText from info and comment/text attributes only', () => {
    const entry = entryFromMispEvent(
      event({
        Attribute: [
          attr('comment', 'UPX packed', { to_ids: false }),
          attr('text', 'Key: 85350044\r\nEncryption   rounds:8', { to_ids: '0' }),
          attr('text', 'to_ids text is still prose', { to_ids: true }),
          attr('text', 'deleted text', { to_ids: false, deleted: true }),
          attr('url', 'http://not-prose.example', { to_ids: false }),
        ],
        Object: [{ name: 'file', Attribute: [attr('text', 'Malicious', { to_ids: false })] }],
      }),
      CTX,
    );
    expect(entry.contentText).toBe('An event\n\nUPX packed\n\nKey: 85350044\nEncryption rounds:8\n\nto_ids text is still prose');
    expect(entry.indicators).toEqual([]);
  });

  it('collects event tags and galaxy clusters as given, deduplicated', () => {
    const entry = entryFromMispEvent(
      event({
        Tag: [{ name: 'tlp:white', colour: '#fff' }, { name: 'misp-galaxy:threat-actor="Sofacy"' }, { name: '' }],
        Galaxy: [
          {
            type: 'threat-actor',
            GalaxyCluster: [
              { type: 'threat-actor', value: 'Sofacy', tag_name: 'misp-galaxy:threat-actor="Sofacy"' },
              { type: 'threat-actor', value: 'APT28' },
            ],
          },
          { type: 'tool', GalaxyCluster: [{ value: 'X-Agent', tag_name: 'misp-galaxy:tool="X-Agent"' }] },
        ],
      }),
      CTX,
    );
    expect(entry.tags).toEqual(['tlp:white', 'misp-galaxy:threat-actor="Sofacy"', 'misp-galaxy:threat-actor="APT28"', 'misp-galaxy:tool="X-Agent"']);
    const index = entryFromMispEvent(event({ EventTag: [{ id: '1', Tag: { name: 'TLP:GREEN' } }, { Tag: null }] }), CTX);
    expect(index.tags).toEqual(['TLP:GREEN']);
  });
});

describe('entryFromMispEvent: indicators', () => {
  it.each<[string, string, Array<[string, string]>]>([
    ['ip-src', '198.51.100.7', [['ipv4', '198.51.100.7']]],
    ['ip-dst', '2001:db8::1', [['ipv6', '2001:db8::1']]],
    ['ip-dst', '203.0.113.0/24', [['ipv4', '203.0.113.0/24']]],
    ['ip-dst', 'not-an-ip', [['other', 'not-an-ip']]],
    ['ip-dst|port', '198.51.100.7|443', [['ipv4', '198.51.100.7']]],
    ['ip-src|port', '2001:db8::2|8080', [['ipv6', '2001:db8::2']]],
    ['domain', 'evil.example', [['domain', 'evil.example']]],
    ['hostname', 'c2.evil.example', [['domain', 'c2.evil.example']]],
    ['hostname|port', 'c2.evil.example|8443', [['domain', 'c2.evil.example']]],
    ['domain|ip', 'evil.example|198.51.100.7', [['domain', 'evil.example'], ['ipv4', '198.51.100.7']]],
    ['url', 'http://evil.example/a?b=1', [['url', 'http://evil.example/a?b=1']]],
    ['uri', '/gate.php', [['url', '/gate.php']]],
    ['link', 'https://evil.example/landing', [['url', 'https://evil.example/landing']]],
    ['email', 'a@evil.example', [['email', 'a@evil.example']]],
    ['email-src', 'b@evil.example', [['email', 'b@evil.example']]],
    ['email-dst', 'c@victim.example', [['email', 'c@victim.example']]],
    ['md5', '0749bae92ca336a02c83d126e04ec628', [['md5', '0749bae92ca336a02c83d126e04ec628']]],
    ['sha1', '77b0c41b7d340b8a3d903f21347bbf06aa766b5b', [['sha1', '77b0c41b7d340b8a3d903f21347bbf06aa766b5b']]],
    ['sha256', 'b3c4ae25', [['sha256', 'b3c4ae25']]],
    ['sha512', 'cafe', [['sha512', 'cafe']]],
    ['ssdeep', '96:abc:def', [['ssdeep', '96:abc:def']]],
    ['filename', '3Z4wnG9603it23y.exe', [['filename', '3Z4wnG9603it23y.exe']]],
    ['filename|md5', 'a.exe|f34888e5', [['filename', 'a.exe'], ['md5', 'f34888e5']]],
    ['filename|sha1', 'a.exe|028a9c61', [['filename', 'a.exe'], ['sha1', '028a9c61']]],
    ['filename|sha256', 'odd|name.exe|5639ebb5', [['filename', 'odd'], ['sha256', 'name.exe|5639ebb5']]],
    ['filename|sha512', 'a.exe|beef', [['filename', 'a.exe'], ['sha512', 'beef']]],
    ['filename|ssdeep', 'a.exe|3:a:b', [['filename', 'a.exe'], ['ssdeep', '3:a:b']]],
    ['filename|imphash', 'a.exe|dead', [['filename', 'a.exe'], ['other', 'dead']]],
    ['malware-sample', 'a1jxlz|f34888e54bb3f7a95fc262cec94afe84', [['filename', 'a1jxlz'], ['md5', 'f34888e54bb3f7a95fc262cec94afe84']]],
    ['regkey', 'HKLM\\Software\\Run', [['registry-key', 'HKLM\\Software\\Run']]],
    ['regkey|value', 'Software\\Microsoft\\Windows\\CurrentVersion\\Run|%TEMP%\\x.exe', [['registry-key', 'Software\\Microsoft\\Windows\\CurrentVersion\\Run']]],
    ['mutex', 'Global\\xyz', [['mutex', 'Global\\xyz']]],
    ['x509-fingerprint-sha1', 'aa:bb', [['cert', 'aa:bb']]],
    ['x509-fingerprint-sha256', 'ccdd', [['cert', 'ccdd']]],
    ['x509-fingerprint-md5', 'eeff', [['cert', 'eeff']]],
    ['AS', 'AS64496', [['asn', 'AS64496']]],
    ['vulnerability', 'CVE-2017-11882', [['cve', 'CVE-2017-11882']]],
    ['yara', 'rule x { condition: true }', [['other', 'rule x { condition: true }']]],
    ['domain|ip', 'only-domain.example', [['domain', 'only-domain.example']]],
  ])('%s %s', (type, value, expected) => {
    expect(typed(type, value)).toEqual(expected);
  });

  it('reads to_ids as boolean, "1"/"0" or 1/0', () => {
    const values = [true, '1', 1, 'true', false, '0', 0, null, undefined].map((to_ids, i) => attr('domain', `d${i}.example`, { to_ids }));
    const entry = entryFromMispEvent(event({ Attribute: values }), CTX);
    expect(entry.indicators.map((i) => i.value)).toEqual(['d0.example', 'd1.example', 'd2.example', 'd3.example']);
  });

  it('skips deleted attributes and deleted objects', () => {
    const entry = entryFromMispEvent(
      event({
        Attribute: [attr('md5', 'aaa', { deleted: true }), attr('md5', 'bbb', { deleted: '1' }), attr('md5', 'ccc', { deleted: '0' })],
        Object: [
          { name: 'file', deleted: true, Attribute: [attr('sha1', 'gone')] },
          { name: 'file', deleted: false, Attribute: [attr('sha1', 'kept'), attr('sha1', 'gone-too', { deleted: true })] },
        ],
      }),
      CTX,
    );
    expect(entry.indicators.map((i) => i.value)).toEqual(['ccc', 'kept']);
  });

  it('includes object attributes with origin, context and confidence', () => {
    const e = event({
      threat_level_id: '3',
      Attribute: [attr('domain', 'evil.example', { uuid: 'a-1' })],
      Object: [{ name: 'file', uuid: 'o-1', Attribute: [attr('filename|sha1', 'doc.doc|68064fc1', { uuid: 'a-2', object_relation: 'x' })] }],
    });
    expect(entryFromMispEvent(e, CTX).indicators).toEqual([
      { type: 'domain', value: 'evil.example', confidence: 0.8, origin: 'misp:attribute:a-1', context: 'domain' },
      { type: 'filename', value: 'doc.doc', confidence: 0.8, origin: 'misp:attribute:a-2', context: 'filename|sha1' },
      { type: 'sha1', value: '68064fc1', confidence: 0.8, origin: 'misp:attribute:a-2', context: 'filename|sha1' },
    ]);
    for (const level of ['1', 1]) {
      const high = entryFromMispEvent(event({ threat_level_id: level, Attribute: [attr('md5', 'x')] }), CTX);
      expect(high.indicators[0]?.confidence).toBe(0.9);
    }
    const noUuid = entryFromMispEvent(event({ Attribute: [{ type: 'md5', value: 'y', to_ids: true, id: '77' }] }), CTX);
    expect(noUuid.indicators[0]?.origin).toBe('misp:attribute:id-77');
  });

  it('deduplicates indicators by (type, value), first origin wins', () => {
    const entry = entryFromMispEvent(
      event({ Attribute: [attr('md5', 'abc', { uuid: 'first' }), attr('filename|md5', 'x.exe|abc', { uuid: 'second' }), attr('md5', ' abc ')] }),
      CTX,
    );
    expect(entry.indicators.map((i) => [i.type, i.value, i.origin])).toEqual([
      ['md5', 'abc', 'misp:attribute:first'],
      ['filename', 'x.exe', 'misp:attribute:second'],
    ]);
  });

  it('puts non-to_ids links in references and ignores other non-to_ids attributes', () => {
    const entry = entryFromMispEvent(
      event({
        Attribute: [
          attr('link', 'https://www.virustotal.com/file/abc/analysis/', { to_ids: false }),
          attr('link', 'https://www.virustotal.com/file/abc/analysis/', { to_ids: '0' }),
          attr('link', 'https://deleted.example', { to_ids: false, deleted: true }),
          attr('domain', 'benign.example', { to_ids: false }),
          attr('ip-dst', '192.0.2.1', { to_ids: '0' }),
        ],
        Object: [{ name: 'report', Attribute: [attr('link', 'https://report.example/x', { to_ids: false })] }],
      }),
      CTX,
    );
    expect(entry.references).toEqual(['https://www.virustotal.com/file/abc/analysis/', 'https://report.example/x']);
    expect(entry.indicators).toEqual([]);
    expect(entry.contentText).toBe('An event');
  });
});
