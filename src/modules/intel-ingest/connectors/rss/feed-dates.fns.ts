/**
 * Feed date parsing. Feeds in the wild use RFC 822 (RSS), RFC 3339 (Atom, JSON Feed), W3CDTF
 * (dc:date) and a long tail of near-misses, so this is a hand-written, deterministic parser:
 * `Date.parse` is engine-specific and accepts garbage (V8 reads "1" as the year 2001), which would
 * store wrong dates silently. Anything we cannot read confidently becomes null, never Invalid Date.
 */

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};

/**
 * Zone abbreviations, in minutes east of UTC. RFC 822 defines only the US zones and UT/GMT; the
 * rest are the ones feeds actually emit. Ambiguous ones take the reading most common in feeds
 * (IST = India, the zone of several large security-news sites; BST = British Summer Time).
 */
const ZONES: Record<string, number> = {
  ut: 0, utc: 0, gmt: 0, z: 0, wet: 0,
  est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420,
  ast: -240, adt: -180, nst: -210, ndt: -150, akst: -540, akdt: -480, hst: -600,
  bst: 60, ist: 330, cet: 60, cest: 120, met: 60, mest: 120, eet: 120, eest: 180, west: 60, msk: 180,
  jst: 540, kst: 540, hkt: 480, sgt: 480, awst: 480, acst: 570, acdt: 630, aest: 600, aedt: 660,
  nzst: 720, nzdt: 780,
};

/** Years outside this window are almost certainly parse accidents (e.g. a time read as a year). */
const MIN_YEAR = 1970;
const MAX_YEAR = 2200;

/** Parses a feed date into ISO 8601 UTC (`2003-06-10T04:00:00.000Z`), or null when unreadable. */
export function parseFeedDate(s: string): string | null {
  const input = s.trim();
  if (input === '' || input.length > 100) return null;
  return parseIsoDate(input) ?? parseTextDate(input);
}

// ---------------------------------------------------------------- ISO 8601 / RFC 3339 / W3CDTF

const ISO_RE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?|(?:UTC|GMT|UT)(?:[+-]\d{2}(?::?\d{2})?)?|[A-Za-z]{2,5})?$/i;
const ISO_BASIC_RE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseIsoDate(input: string): string | null {
  const m = ISO_RE.exec(input) ?? ISO_BASIC_RE.exec(input);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  // A date-only value (W3CDTF allows `2003` and `2003-06`) is taken as midnight UTC.
  const offset = zone === undefined ? 0 : zoneOffsetMinutes(zone);
  if (offset === null) return null;
  return build({
    year: Number(y),
    month: mo === undefined ? 1 : Number(mo),
    day: d === undefined ? 1 : Number(d),
    hour: h === undefined ? 0 : Number(h),
    minute: mi === undefined ? 0 : Number(mi),
    second: sec === undefined ? 0 : Number(sec),
    ms: frac === undefined ? 0 : Math.round(Number(`0.${frac}`) * 1000),
    offset,
  });
}

// ---------------------------------------------------------------- RFC 822 / 2822 and friends

const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?$/;

/**
 * Token-based reading of "human" dates: RFC 822 (`Tue, 10 Jun 03 04:00:00 GMT`), asctime
 * (`Tue Jun 10 04:00:00 2003`), `June 10, 2003 4:00 PM EST`, `10-Jun-2003 04:00 +0000`. It needs a
 * month name, a day, a year; the time and zone are optional (missing zone = UTC, as RFC 2822 says
 * for `-0000`). Any token it cannot place makes the whole date unreadable.
 */
function parseTextDate(input: string): string | null {
  // Drop RFC 2822 comments like `(PST)` and separators that carry no meaning.
  const cleaned = input.replace(/\([^)]*\)/g, ' ').replace(/,/g, ' ').replace(/(\d)(st|nd|rd|th)\b/gi, '$1');
  const tokens = cleaned
    .split(/\s+/)
    .flatMap((t) => (/^\d{1,2}-[a-z]{3,}-\d{2,4}$/i.test(t) ? t.split('-') : [t]))
    .filter((t) => t !== '');
  let month: number | null = null;
  let time: RegExpExecArray | null = null;
  let offset: number | null = null;
  let pm: boolean | null = null;
  const numbers: string[] = [];
  for (const raw of tokens) {
    const tok = raw.replace(/\.$/, '');
    const lower = tok.toLowerCase();
    const monthKey = lower.length >= 3 ? lower.slice(0, lower === 'sept' ? 4 : 3) : '';
    if (month === null && /^[a-z]+$/.test(lower) && MONTHS[monthKey] !== undefined && isMonthName(lower)) {
      month = MONTHS[monthKey] ?? null;
    } else if (/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*$/.test(lower)) {
      continue; // the weekday is redundant (and often wrong); ignore it
    } else if (time === null && TIME_RE.test(tok)) {
      time = TIME_RE.exec(tok);
    } else if (time === null && /^\d{1,2}:\d{2}(:\d{2})?(am|pm)$/i.test(tok)) {
      time = TIME_RE.exec(tok.slice(0, -2));
      pm = lower.endsWith('pm');
    } else if (lower === 'am' || lower === 'pm') {
      pm = lower === 'pm';
    } else if (/^\d+$/.test(tok)) {
      numbers.push(tok);
    } else if (offset === null && (/^[+-]\d{2}:?\d{2}$/.test(tok) || /^[a-z]{1,5}([+-]\d{1,2}(:?\d{2})?)?$/i.test(tok))) {
      offset = zoneOffsetMinutes(tok);
      if (offset === null) return null;
    } else {
      return null;
    }
  }
  if (month === null || numbers.length !== 2) return null;
  // Day first unless the first number is clearly a 4-digit year (`2003 Jun 10`).
  const [a = '', b = ''] = numbers;
  const [dayTok, yearTok] = a.length === 4 ? [b, a] : [a, b];
  if (dayTok.length > 2) return null;
  let hour = time ? Number(time[1]) : 0;
  if (pm !== null) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  return build({
    year: expandYear(yearTok),
    month,
    day: Number(dayTok),
    hour,
    minute: time ? Number(time[2]) : 0,
    second: time?.[3] === undefined ? 0 : Number(time[3]),
    ms: time?.[4] === undefined ? 0 : Math.round(Number(`0.${time[4]}`) * 1000),
    offset: offset ?? 0,
  });
}

function isMonthName(lower: string): boolean {
  const full = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
  return full.some((name) => name.startsWith(lower) || (lower === 'sept' && name === 'september'));
}

/** RFC 2822 §4.3: two-digit years 00–49 are 20xx, 50–99 are 19xx; three digits add 1900. */
function expandYear(tok: string): number {
  const n = Number(tok);
  if (tok.length === 2) return n < 50 ? 2000 + n : 1900 + n;
  if (tok.length === 3) return 1900 + n;
  return n;
}

/** `+0530`, `-07:00`, `+05`, `Z`, `GMT`, `EDT`, `GMT+2`, `UTC-05:00` → minutes east of UTC. */
function zoneOffsetMinutes(zone: string): number | null {
  const z = zone.trim().toLowerCase();
  const numeric = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (numeric) {
    const [, sign, hh = '0', mm = '0'] = numeric;
    if (Number(hh) > 14 || Number(mm) > 59) return null;
    return (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm));
  }
  const prefixed = /^(utc|gmt|ut)([+-].+)$/.exec(z);
  if (prefixed?.[2] !== undefined) return zoneOffsetMinutes(prefixed[2]);
  const named = ZONES[z];
  if (named !== undefined) return named;
  // RFC 2822 §4.3: single-letter military zones were specified backwards so often that they
  // "SHOULD all be considered equivalent to -0000" — i.e. UTC with unknown local time.
  if (/^[a-ik-y]$/.test(z)) return 0;
  return null;
}

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  offset: number;
}

function build(p: DateParts): string | null {
  if (p.year < MIN_YEAR || p.year > MAX_YEAR || p.month < 1 || p.month > 12 || p.day < 1) return null;
  const daysInMonth = new Date(Date.UTC(p.year, p.month, 0)).getUTCDate();
  if (p.day > daysInMonth) return null;
  // 24:00 is ISO's "end of day"; a :60 second is a leap second. Both are rounded into range.
  if (p.hour > 24 || (p.hour === 24 && (p.minute > 0 || p.second > 0)) || p.minute > 59 || p.second > 60) return null;
  const second = Math.min(p.second, 59);
  const ms = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, second, Math.min(p.ms, 999)) - p.offset * 60_000;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
