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

export function renderTeams(target: Target, m: Message): Rendered {
  const facts = m.fields.map((f) => ({ title: truncate(f.name, 100), value: truncate(f.value, 500) }));
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', size: 'Large', weight: 'Bolder', wrap: true, text: truncate(m.title, 200), ...(m.severity ? { color: SEVERITY_COLOR[m.severity] } : {}) },
      ...(m.body ? [{ type: 'TextBlock', wrap: true, text: truncateBytes(m.body, MAX_BODY_BYTES) }] : []),
      ...(facts.length ? [{ type: 'FactSet', facts }] : []),
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
