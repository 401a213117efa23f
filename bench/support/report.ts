/**
 * Printing: the machine a run happened on, one table per benchmark, and the summary table of
 * every figure that has a target (value, target, ratio, pass/fail).
 */
import fs from 'node:fs';
import os from 'node:os';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** `min`: the figure must be ≥ target; `max`: it must be < target. */
  target?: { value: number; kind: 'min' | 'max' };
  digits?: number;
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1/5/15-minute load averages: on a shared machine, the first thing to read. */
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() || cpuModelFromProc() || 'unknown CPU',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

function cpuModelFromProc(): string | null {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}; load average ${m.loadAverage.map((l) => l.toFixed(2)).join(' / ')}`;
}

export interface Verdict {
  ratio: number;
  pass: boolean;
}

/** ratio = value / target: for a `min` target ≥ 1 passes, for a `max` target < 1 passes. */
export function verdict(f: Figure): Verdict | null {
  if (!f.target || !Number.isFinite(f.value)) return f.target ? { ratio: NaN, pass: false } : null;
  const ratio = f.value / f.target.value;
  return { ratio, pass: f.target.kind === 'min' ? f.value >= f.target.value : f.value < f.target.value };
}

const fmtValue = (f: Figure) => `${Number.isFinite(f.value) ? f.value.toLocaleString('en', { minimumFractionDigits: f.digits ?? 0, maximumFractionDigits: f.digits ?? 0 }) : 'n/a'} ${f.unit}`;
const fmtTarget = (f: Figure) => (f.target ? `${f.target.kind === 'min' ? '≥' : '<'} ${f.target.value.toLocaleString('en')} ${f.unit}` : '');

/** Columns padded to width; `right` lists the right-aligned column indexes. */
export function table(head: string[], rows: string[][], right: number[] = []): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** One benchmark's figures (targets or not) and notes. */
export function formatFigures(title: string, figures: Figure[], notes: string[] = []): string {
  const rows = figures.map((f) => {
    const v = verdict(f);
    return [f.name, fmtValue(f), fmtTarget(f), v ? `${v.ratio.toFixed(2)}×` : '', v ? (v.pass ? 'pass' : 'MISS') : ''];
  });
  return [`\n== ${title}`, table(['figure', 'value', 'target', 'ratio', ''], rows, [1, 3]), ...notes.map((n) => `note: ${n}`), ''].join('\n');
}

export interface SummaryRow {
  bench: string;
  figure: Figure;
}

/** The figures with a target, across benchmarks; failed benchmarks are listed as errors. */
export function formatSummary(machine: MachineInfo, rows: SummaryRow[], errors: Array<{ bench: string; message: string }>, quick: boolean): string {
  const body = rows.map(({ bench, figure }) => {
    const v = verdict(figure)!;
    return [bench, figure.name, fmtValue(figure), fmtTarget(figure), Number.isFinite(v.ratio) ? `${v.ratio.toFixed(2)}×` : 'n/a', v.pass ? 'pass' : 'MISS'];
  });
  for (const e of errors) body.push([e.bench, `ERROR: ${e.message.split('\n')[0]!.slice(0, 100)}`, '', '', '', 'ERROR']);
  return [
    '\n==================== summary ====================',
    `machine: ${describeMachine(machine)}`,
    ...(quick ? ['BENCH_QUICK=1: smoke run on small data and short durations; the figures are NOT comparable with the targets'] : []),
    '',
    table(['bench', 'figure', 'value', 'target', 'ratio', 'result'], body, [2, 4]),
    '(ratio = value / target: a `≥` target passes at ≥ 1×, a `<` target passes below 1×)',
    '',
  ].join('\n');
}
