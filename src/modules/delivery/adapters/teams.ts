import { truncate, truncateBytes, type Message } from '../message.fns.js';
import { byStatus, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, Target } from './types.js';

/**
 * Microsoft Teams through a Workflows (Power Automate) "When a Teams webhook request is
 * received" URL: a message with one Adaptive Card attachment. Teams refuses messages over
 * 28 KB: the whole message (card, fields and all) is kept under MAX_MESSAGE_BYTES by cutting the
 * body first, then the field values, then the number of fields (`capped`).
 */
const MAX_BODY_BYTES = 24_000;
/** Teams' limit is 28 KB (28,672 bytes) for the whole request body; a margin for the Workflows envelope. */
export const MAX_MESSAGE_BYTES = 27_000;
const SEVERITY_COLOR: Record<string, string> = { critical: 'Attention', high: 'Attention', medium: 'Warning', low: 'Accent', info: 'Default' };

/**
 * Text with no Markdown at all: a `TextRun` of a `RichTextBlock` (Adaptive Cards 1.2) shows its
 * text as is, where a `TextBlock` or a `FactSet` renders Markdown, so `[Reset](https://evil.example)`
 * in an alert's title would be a live link. Every sender text is a TextRun; Rampart's own links are
 * the card's `Action.OpenUrl` buttons, the only clickable parts.
 */
type TextRun = { type: 'TextRun'; text: string; weight?: 'Bolder'; size?: 'Large'; color?: string; fontType?: 'Monospace' };
const runs = (inlines: TextRun[], spacing?: 'None') => ({ type: 'RichTextBlock', inlines, ...(spacing ? { spacing } : {}) });
const run = (text: string, style: Omit<TextRun, 'type' | 'text'> = {}): TextRun => ({ type: 'TextRun', text, ...style });

/** One line of a Markdown body as runs: `**bold**` and headings bold, a link as its text and address (not clickable). */
function lineRuns(line: string): TextRun[] {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return [run(heading[1]!, { weight: 'Bolder' })];
  const plain = line.replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '$1 ($2)');
  return plain.split(/\*\*(.+?)\*\*/).flatMap((part, i) => (part ? [run(part, i % 2 ? { weight: 'Bolder' } : {})] : []));
}

/** Teams renders at most a few hundred blocks well: lines beyond go into the last one. */
const MAX_BODY_LINES = 150;

const TABLE_RULE = /^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-*:?)?\s*$/;
const TABLE_ROW = /^\s*\|(.*)\|\s*$/;

/**
 * A Markdown body's lines as runs, its blocks rendered as a person reads them: a code fence's
 * lines in monospace without the fence marks, a table's rows as cells separated by " · " (the
 * header row bold, the `|---|` rule left out), headings and `**bold**` bold.
 */
function bodyLines(body: string): TextRun[][] {
  const out: TextRun[][] = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      out.push([run(line.length ? line : ' ', { fontType: 'Monospace' })]);
      continue;
    }
    if (TABLE_RULE.test(line)) continue;
    const row = TABLE_ROW.exec(line);
    if (row) {
      out.push([run(row[1]!.split('|').map((c) => c.trim().replace(/\*\*(.+?)\*\*/g, '$1')).join('  ·  '))]);
      continue;
    }
    out.push(line.trim() ? lineRuns(line) : [run(' ')]);
  }
  return out;
}

function bodyBlocks(body: string, maxBytes: number) {
  const md = truncateBytes(body, maxBytes);
  const headerRows = new Set<number>();
  const lines = md.split('\n');
  // A table's header row (the row right before its `|---|` rule) is bold; indices as bodyLines numbers its lines.
  let index = 0;
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i]!)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced && TABLE_RULE.test(lines[i]!)) continue;
    if (!fenced && TABLE_ROW.test(lines[i]!) && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]!)) headerRows.add(index);
    index++;
  }
  const rendered = bodyLines(md).map((r, i) => (headerRows.has(i) ? r.map((x) => ({ ...x, weight: 'Bolder' as const })) : r));
  const kept = rendered.length > MAX_BODY_LINES ? [...rendered.slice(0, MAX_BODY_LINES - 1), rendered.slice(MAX_BODY_LINES - 1).flat()] : rendered;
  return kept.map((inlines, i) => runs(inlines, i ? 'None' : undefined));
}

/** How much of the message a card holds: the body's bytes, each field value's characters, the number of fields. */
interface Budget { bodyBytes: number; valueChars: number; fields: number }

export function renderTeams(target: Target, m: Message): Rendered {
  // The whole message under Teams' 28 KB: cut the body, then the field values, then the fields.
  let budget: Budget = { bodyBytes: MAX_BODY_BYTES, valueChars: 500, fields: 40 };
  let body = teamsMessage(m, budget);
  for (let i = 0; i < 12 && Buffer.byteLength(body) > MAX_MESSAGE_BYTES; i++) {
    const over = Buffer.byteLength(body) - MAX_MESSAGE_BYTES;
    budget = budget.bodyBytes > 2_000 && m.body
      ? { ...budget, bodyBytes: Math.max(2_000, budget.bodyBytes - over * 2) }
      : budget.valueChars > 100
        ? { ...budget, valueChars: Math.max(100, Math.floor(budget.valueChars / 2)) }
        : { ...budget, fields: Math.max(1, Math.floor(budget.fields / 2)) };
    body = teamsMessage(m, budget);
  }
  return { url: (target.config as { url: string }).url, headers: { ...JSON_HEADERS }, body };
}

function teamsMessage(m: Message, budget: Budget): string {
  const fields = m.fields.slice(0, budget.fields);
  const left = m.fields.length - fields.length;
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      runs([run(truncate(m.title, 200), { size: 'Large', weight: 'Bolder', ...(m.severity ? { color: SEVERITY_COLOR[m.severity] } : {}) })]),
      ...(m.body ? bodyBlocks(m.body, budget.bodyBytes) : []),
      // The fields as "Name: value" lines (a FactSet would render Markdown in both).
      ...fields.map((f, i) => runs([run(`${truncate(f.name, 100)}: `, { weight: 'Bolder' }), run(truncate(f.value, budget.valueChars))], i ? 'None' : undefined)),
      ...(left > 0 ? [runs([run(`… ${left} more field${left === 1 ? '' : 's'} in Rampart`, { weight: 'Bolder' })], 'None')] : []),
    ],
    ...(m.links.length ? { actions: m.links.slice(0, 5).map((l) => ({ type: 'Action.OpenUrl', title: l.text, url: l.url })) } : {}),
    msteams: { width: 'Full' },
  };
  return JSON.stringify({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
}

export const teamsAdapter: Adapter = {
  async send(target, message, ctx) {
    const res = await post(renderTeams(target, message), target, ctx);
    return isOutcome(res) ? res : byStatus(res, target, 'Teams');
  },
};
