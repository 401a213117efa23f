/**
 * The HTTP bench's data: 20 output destinations of all six types, most with a token (so the
 * route decrypts and reveals them to the Super Admin key), created through the real API.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';

export const DESTINATIONS = 20;

function destinationInputs(): Array<{ type: string; name: string; config: unknown; token?: string }> {
  const out: Array<{ type: string; name: string; config: unknown; token?: string }> = [];
  for (let i = 0; out.length < DESTINATIONS; i++) {
    const k = i + 1;
    const variants = [
      { type: 'webhook', name: `SOC webhook ${k}`, config: { url: `https://hooks.example.com/rampart/${k}`, authType: 'bearer' }, token: `whk_${randomBytes(18).toString('base64url')}` },
      { type: 'webhook', name: `SIEM intake ${k}`, config: { url: `https://siem.example.net/intake/${k}`, authType: 'header', headerName: 'X-Api-Key' }, token: randomBytes(24).toString('hex') },
      { type: 'teams', name: `Teams channel ${k}`, config: { url: `https://prod-42.westeurope.logic.azure.com/workflows/${randomBytes(8).toString('hex')}/triggers/manual/paths/invoke?sig=${randomBytes(16).toString('hex')}` } },
      { type: 'slack', name: `Slack #alerts-${k}`, config: { channelIds: ['C0123456789', `C0${k}ABCDEFG`], configurationRevision: k }, token: `xoxb-${randomBytes(20).toString('hex')}` },
      { type: 'pagerduty', name: `PagerDuty service ${k}`, config: { severity: k % 2 ? 'critical' : 'warning', source: 'rampart' }, token: randomBytes(16).toString('hex') },
      { type: 'linear', name: `Linear triage ${k}`, config: { teamId: `team-${k}`, teamName: 'Security', labelIds: ['lbl-1', 'lbl-2'], labelNames: ['security', 'incident'] }, token: `lin_api_${randomBytes(20).toString('hex')}` },
      { type: 'tines', name: `Tines story ${k}`, config: { teamId: String(1000 + k), teamName: 'Automation' } },
    ];
    out.push(variants[i % variants.length]!);
  }
  return out;
}

export async function seedDestinations(origin: string, route: string, apiKey: string): Promise<{ count: number; withToken: number; types: Record<string, number> }> {
  let withToken = 0;
  const types: Record<string, number> = {};
  for (const input of destinationInputs()) {
    const res = await request(`${origin}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`seeding a destination failed: ${res.statusCode} ${body}`);
    types[input.type] = (types[input.type] ?? 0) + 1;
    if (input.token) withToken++;
  }
  return { count: DESTINATIONS, withToken, types };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const res = await request(url, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, body: JSON.parse(text) as unknown };
}
