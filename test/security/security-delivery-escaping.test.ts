import * as AC from 'adaptivecards';
import type { KnownBlock, MrkdwnElement, PlainTextElement } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { attemptDelivery, createDestination, deliveryDeps, deliveryLog, queue } from '../support/delivery.js';
import { startFakeSlack, type FakeSlack } from '../support/fakes/slack-server.js';
import { startFakeTeams, type FakeTeams } from '../support/fakes/teams-server.js';

/**
 * Issue 41 item 13, as the attack: alert text comes from senders (a phishing email's subject, a
 * webhook payload). An alert titled with a Slack channel mention and a forged Slack link, described
 * with a Markdown link, closed with a reason carrying `<!here>`, triaged by an agent whose name
 * holds a right-to-left override, goes through the real delivery path to the Slack and Teams fakes.
 * What arrives is checked against the products' own definitions: Block Kit (`@slack/types`) and the
 * Adaptive Cards parser (`adaptivecards`): no mention, no link but Rampart's own, no bidi control.
 */
const BASE = 'https://rampart.example.com';
const RLO = '\u202E';
const TITLE = `Impossible travel <!channel> <https://evil.example|click to reset> invoice${RLO}fdp.exe`;
const DESCRIPTION = 'Please [Reset](https://evil.example/reset) now & <@U024BE7LH> **urgent** ![x](https://evil.example/p.png)';
const REASON = '<!here> see <https://evil.example/t|the ticket> [ticket](https://evil.example/t2)';
const AGENT = `Triage <!everyone> \u2066bot\u2069 ${RLO}gnp.exe`;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

let t: TestContext;
let key: string;
let org: string;
let slack: FakeSlack;
let teams: FakeTeams;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  org = t.orgA.organization.id;
  [slack, teams] = await Promise.all([startFakeSlack({ token: 'xoxb-1-test' }), startFakeTeams()]);
});
afterAll(async () => {
  await Promise.all([slack, teams].map((f) => f?.close()));
  await t?.close();
});

/** Creates the hostile alert through the API, closes it with the hostile reason, and delivers both events plus a triage run's verdict. */
async function deliverHostile(destinationId: string): Promise<void> {
  const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: TITLE, description: DESCRIPTION, severity: 'high' } });
  expect(created.statusCode, created.body).toBe(200);
  const alert = created.json().alert;
  const closed = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/status`, headers: bearer(key), payload: { status: 'closed_benign', reason: REASON } });
  expect(closed.statusCode, closed.body).toBe(200);
  const pending = (await deliveryLog(t, key, destinationId, '?status=pending')).deliveries.map((d) => d.id as string);
  expect(pending).toHaveLength(2);
  const run = await queue(t, org, [destinationId], 'agent_run.completed', {
    runId: '0190a8e0-0000-7000-8000-000000000001',
    agentId: '0190a8e0-0000-7000-8000-0000000000a6',
    agentName: AGENT,
    finalAssistantMessage: `Verdict for ${TITLE}: ${DESCRIPTION}`,
    alert: { ...alert, status: 'escalated' },
  });
  for (const id of [...pending, ...run.ids]) expect(await attemptDelivery(deliveryDeps(t), id)).toBe('succeeded');
}

/** Every `<…>` sequence of a Slack mrkdwn text: only Rampart's own console links may be one. */
function expectOnlyOwnLinks(text: string, where: string) {
  for (const m of text.matchAll(/<[^>]*>/g)) expect(m[0], where).toMatch(new RegExp(`^<${BASE.replace(/\./g, '\\.')}/[^|<>]+\\|[^<>]*>$`));
  expect(text, where).not.toMatch(/<[!@#]/);
  expect(text, where).not.toMatch(BIDI);
}

/** Walks Block Kit as `@slack/types` defines it, returning every text object with the block type it sits in. */
function slackTexts(blocks: KnownBlock[]): Array<{ block: string; text: MrkdwnElement | PlainTextElement }> {
  const out: Array<{ block: string; text: MrkdwnElement | PlainTextElement }> = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'header':
        expect(b.text.type).toBe('plain_text');
        out.push({ block: b.type, text: b.text });
        break;
      case 'section':
        if (b.text) out.push({ block: b.type, text: b.text });
        for (const f of b.fields ?? []) out.push({ block: b.type, text: f });
        expect(b.accessory, 'no accessory (a button could carry a sender URL)').toBeUndefined();
        break;
      case 'context':
        for (const e of b.elements) {
          expect(['mrkdwn', 'plain_text']).toContain(e.type);
          out.push({ block: b.type, text: e as MrkdwnElement | PlainTextElement });
        }
        break;
      default:
        throw new Error(`unexpected block ${b.type}`);
    }
  }
  return out;
}

describe('hostile alert text to Slack', () => {
  it('pings no channel and forges no link: mrkdwn escaped and verbatim, only console links live, bidi controls neutralised', async () => {
    const id = await createDestination(t, key, { type: 'slack', name: 'SOC', config: { channelIds: ['C1'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test', eventSubscriptions: ['alert.created', 'alert.status_changed', 'agent_run.completed'] });
    const before = slack.posted.length;
    const requestsBefore = slack.requests.length;
    await deliverHostile(id);
    const posts = slack.posted.slice(before);
    expect(posts).toHaveLength(3);
    // Slack parses nothing itself: no channel names linked, no `@here` made a mention.
    for (const r of slack.requests.slice(requestsBefore)) expect(JSON.parse(r.body)).toMatchObject({ parse: 'none', link_names: false, unfurl_links: false, unfurl_media: false });
    for (const [i, p] of posts.entries()) {
      // The notification text (mrkdwn, shown in pushes and by clients without blocks).
      expectOnlyOwnLinks(p.text, `post ${i} text`);
      expect(p.text).toContain('&lt;!');
      const texts = slackTexts(p.blocks as KnownBlock[]);
      for (const { block, text } of texts) {
        expect(text.text, `${block} ${text.type}`).not.toMatch(BIDI);
        if (text.type === 'mrkdwn') {
          expect(text.verbatim, `${block}: mrkdwn with sender text is verbatim (no auto-linking, no mention parsing)`).toBe(true);
          expectOnlyOwnLinks(text.text, `post ${i} ${block}`);
        }
      }
      // The header shows the title as typed (plain_text renders no mention), the override made visible.
      const header = texts.find((x) => x.block === 'header')!.text.text;
      expect(header).toContain('<!channel> <https://evil.example|click to reset>');
      expect(header).toContain('invoice\uFFFDfdp.exe');
      // Rampart's own link to the alert is the one live link.
      expect(texts.some((x) => x.block === 'context' && new RegExp(`<${BASE}/alerts/[0-9a-f-]+\\|Alert RMP-\\d+>`).test(x.text.text))).toBe(true);
    }
    const post = (heading: RegExp) => posts.find((p) => heading.test(p.text))!;
    const [createdPost, closedPost, triagePost] = [post(/^New alert RMP-/), post(/^RMP-\d+ closed as benign/), post(/^RMP-\d+ escalated by/)];
    const sectionText = (p: typeof createdPost) => (p.blocks[1] as { text: { text: string } }).text.text;
    expect(sectionText(createdPost)).toBe('Please Reset (https://evil.example/reset) now &amp; &lt;@U024BE7LH&gt; *urgent* !x (https://evil.example/p.png)');
    expect(sectionText(closedPost)).toBe('&lt;!here&gt; see &lt;https://evil.example/t|the ticket&gt; ticket (https://evil.example/t2)');
    expect(createdPost.text).toContain('Impossible travel &lt;!channel&gt; &lt;https://evil.example|click to reset&gt;');
    // The agent's name, in the title, the fields and the notification.
    expect(triagePost.text).toContain('by Triage &lt;!everyone&gt; \uFFFDbot\uFFFD \uFFFDgnp.exe');
    const fields = triagePost.blocks.flatMap((b) => (b as { fields?: Array<{ text: string }> }).fields ?? []).map((f) => f.text);
    expect(fields).toContain('*Agent*\nTriage &lt;!everyone&gt; \uFFFDbot\uFFFD \uFFFDgnp.exe');
  });
});

/** Every element and action of a card, as the Adaptive Cards object model parsed it. */
function walk(el: AC.CardElement, visit: (el: AC.CardElement) => void) {
  visit(el);
  if (el instanceof AC.CardElementContainer) for (let i = 0; i < el.getItemCount(); i++) walk(el.getItemAt(i), visit);
}

describe('hostile alert text to Teams', () => {
  it('renders no sender Markdown: texts are TextRuns the parser accepts, the only links are the card\'s actions to Rampart', async () => {
    const id = await createDestination(t, key, { type: 'teams', name: 'Teams', config: { url: teams.url }, eventSubscriptions: ['alert.created', 'alert.status_changed', 'agent_run.completed'] });
    const before = teams.cards.length;
    await deliverHostile(id);
    const cards = teams.cards.slice(before);
    expect(cards).toHaveLength(3);
    for (const [i, json] of cards.entries()) {
      const card = new AC.AdaptiveCard();
      const context = new AC.SerializationContext();
      card.parse(json, context);
      const events = Array.from({ length: context.eventCount }, (_, n) => context.getEventAt(n).message);
      expect(events, `card ${i} parses cleanly`).toEqual([]);
      expect(card.validateProperties().validationEvents.map((x) => x.message), `card ${i} validates`).toEqual([]);

      const markdownTexts: string[] = [];
      const plainTexts: string[] = [];
      walk(card, (el) => {
        // TextBlock and FactSet render Markdown: none may carry a sender's text.
        if (el instanceof AC.TextBlock) markdownTexts.push(el.text ?? '');
        if (el instanceof AC.FactSet) for (const f of el.facts) markdownTexts.push(f.name ?? '', f.value ?? '');
        if (el instanceof AC.RichTextBlock) {
          for (let n = 0; n < el.getInlineCount(); n++) {
            const inline = el.getInlineAt(n);
            expect(inline).toBeInstanceOf(AC.TextRun);
            expect((inline as AC.TextRun).selectAction, 'a TextRun is never a link').toBeUndefined();
            plainTexts.push((inline as AC.TextRun).text ?? '');
          }
        }
      });
      expect(markdownTexts, `card ${i}: no Markdown-rendering element carries sender text`).toEqual([]);
      const all = plainTexts.join('\n');
      expect(all).not.toMatch(BIDI);
      expect(all).toContain('\uFFFD');
      expect(all).toContain('<!channel> <https://evil.example|click to reset>');
      expect(all).not.toMatch(/\[[^\]]*\]\(https?:/);
      // The card's actions are its only links, and all go to Rampart.
      const urls = Array.from({ length: card.getActionCount() }, (_, n) => card.getActionAt(n)).map((a) => (a as AC.OpenUrlAction).url);
      expect(urls.length).toBeGreaterThan(0);
      for (const u of urls) expect(u).toMatch(new RegExp(`^${BASE.replace(/\./g, '\\.')}/`));
      expect(JSON.stringify(json.body)).not.toContain('selectAction');
    }
    // The created alert's description shows the Markdown link as text and address.
    const bodies = cards.map((c) => JSON.stringify(c.body));
    expect(bodies.find((b) => b.includes('New alert RMP-'))).toContain('Please Reset (https://evil.example/reset) now & <@U024BE7LH> ');
    expect(bodies.find((b) => b.includes(' escalated by '))).toContain('Triage <!everyone> \uFFFDbot\uFFFD \uFFFDgnp.exe');
  });
});
