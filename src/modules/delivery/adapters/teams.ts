import { truncate, truncateBytes, type Message } from '../message.fns.js';
import { byStatus, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, Target } from './types.js';

/**
 * Microsoft Teams through a Workflows (Power Automate) "When a Teams webhook request is
 * received" URL: a message with one Adaptive Card attachment. Teams refuses messages over
 * 28 KB, so the card's text is cut to stay well under (24 KB for the body).
 */
const MAX_BODY_BYTES = 24_000;
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

function bodyBlocks(body: string) {
  const lines = truncateBytes(body, MAX_BODY_BYTES).split('\n');
  const kept = lines.length > MAX_BODY_LINES ? [...lines.slice(0, MAX_BODY_LINES - 1), lines.slice(MAX_BODY_LINES - 1).join(' ')] : lines;
  return kept.map((line, i) => runs(line.trim() ? lineRuns(line) : [run(' ')], i ? 'None' : undefined));
}

export function renderTeams(target: Target, m: Message): Rendered {
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      runs([run(truncate(m.title, 200), { size: 'Large', weight: 'Bolder', ...(m.severity ? { color: SEVERITY_COLOR[m.severity] } : {}) })]),
      ...(m.body ? bodyBlocks(m.body) : []),
      // The fields as "Name: value" lines (a FactSet would render Markdown in both).
      ...m.fields.slice(0, 40).map((f, i) => runs([run(`${truncate(f.name, 100)}: `, { weight: 'Bolder' }), run(truncate(f.value, 500))], i ? 'None' : undefined)),
    ],
    ...(m.links.length ? { actions: m.links.slice(0, 5).map((l) => ({ type: 'Action.OpenUrl', title: l.text, url: l.url })) } : {}),
    msteams: { width: 'Full' },
  };
  const body = JSON.stringify({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
  return { url: (target.config as { url: string }).url, headers: { ...JSON_HEADERS }, body };
}

export const teamsAdapter: Adapter = {
  async send(target, message, ctx) {
    const res = await post(renderTeams(target, message), target, ctx);
    return isOutcome(res) ? res : byStatus(res, target, 'Teams');
  },
};
