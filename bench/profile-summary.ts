/**
 * Summarises a V8 .cpuprofile (as written by `BENCH_CPU_PROF=a npm run bench`): self time by
 * package / source file, the top functions by self time, and the inclusive time of a few
 * frames that matter for the API's per-request cost.
 *
 *   npx tsx bench/profile-summary.ts bench/results/profiles/server-a.cpuprofile [topN] [responses]
 *
 * With `responses` (serverA.totalResponses in bench/results/latest.json) it also prints µs per
 * request.
 */
import fs from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg, responsesArg] = process.argv.slice(2);
const responses = Number(responsesArg ?? 0);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [topN]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
const idleUs = [...selfUs.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, v]) => a + v, 0);
const busyUs = totalUs - idleUs;

function category(cf: CallFrame): string {
  const url = cf.url;
  if (!url) return cf.functionName.startsWith('(') ? cf.functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).replace(/^file:\/\//, '');
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

const pct = (us: number) => `${((100 * us) / busyUs).toFixed(1).padStart(5)}%`;
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms${responses ? ` ${(us / responses).toFixed(1).padStart(7)} µs/req` : ''}`;

console.log(
  `${file}\nwall ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s, busy ${(busyUs / 1e6).toFixed(2)} s (idle ${(idleUs / 1e6).toFixed(2)} s); percentages are of busy time` +
    (responses ? `; ${(busyUs / responses).toFixed(0)} µs busy per request over ${responses} responses` : '') +
    '\n',
);

const byCat = new Map<string, number>();
const byFn = new Map<string, number>();
for (const [id, us] of selfUs) {
  const cf = byId.get(id)!.callFrame;
  if (cf.functionName === '(idle)') continue;
  const cat = category(cf);
  byCat.set(cat, (byCat.get(cat) ?? 0) + us);
  const fn = `${cf.functionName || '(anonymous)'}  ${cat}:${cf.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
}
console.log('self time by package / file');
for (const [k, v] of [...byCat].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)} ${ms(v)}  ${k}`);
console.log('\ntop functions by self time');
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)} ${ms(v)}  ${k}`);

// Inclusive time: a sample counts once for every distinct frame name on its stack.
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur)!.callFrame;
    const key = `${cf.functionName || '(anonymous)'}  ${category(cf)}:${cf.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
console.log('\ntop frames by inclusive time (src/ and selected libraries)');
const interesting = /src\/|fast-json-stringify|pino|prom-client|kysely|pg\/|uuidv7|ajv|fastify/;
for (const [k, v] of [...inclusive].filter(([k]) => interesting.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)} ${ms(v)}  ${k}`);
