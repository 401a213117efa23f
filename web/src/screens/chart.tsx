import { useEffect, useRef, useState, type ReactNode } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';

// Only the bar chart's parts: the Insights chunk carries what it draws, nothing more.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  values: number[];
  /** A custom property of styles.css (`--c-high`) so both themes have their colours. */
  color: string;
}

/** The current theme, re-read when the toggle changes `data-theme` (charts draw on a canvas, outside CSS). */
function useTheme(): string {
  const [theme, setTheme] = useState(document.documentElement.dataset.theme ?? 'dark');
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme ?? 'dark'));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * A bar chart (stacked when several series) with its data as a table: the canvas is hidden
 * from assistive technology and the table, always in the page, says the same figures; "Show
 * table" makes it visible for everyone.
 */
export function BarChart({ id, title, labels, series, stacked = true, horizontal = false, format = String, note }: {
  id: string; title: string; labels: string[]; series: Series[]; stacked?: boolean; horizontal?: boolean; format?: (v: number) => string; note?: ReactNode;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const theme = useTheme();
  const [asTable, setAsTable] = useState(false);
  // Redrawn when the figures change, not on every render (callers build the arrays inline).
  const data = JSON.stringify([labels, series, stacked, horizontal]);
  useEffect(() => {
    if (!canvas.current || asTable) return;
    const text = cssVar('--muted');
    const grid = cssVar('--border');
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: { labels, datasets: series.map((s) => ({ label: s.label, data: s.values, backgroundColor: cssVar(s.color), borderWidth: 0 })) },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { display: series.length > 1, labels: { color: text, boxWidth: 12 } }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${format(Number(c.raw))}` } } },
        scales: {
          x: { stacked, ticks: { color: text, maxRotation: 0, autoSkip: true }, grid: { color: grid } },
          y: { stacked, ticks: { color: text, precision: 0 }, grid: { color: grid }, beginAtZero: true },
        },
      },
    });
    return () => chart.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data, theme, asTable]);
  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <button type="button" className="link" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>{asTable ? 'Show chart' : 'Show table'}</button>
      </figcaption>
      {note && <p className="muted small">{note}</p>}
      {!asTable && <div className="canvas-box" aria-hidden="true"><canvas ref={canvas} /></div>}
      <div className={asTable ? 'table-wrap' : 'sr-only'}>
        <table aria-labelledby={`${id}-title`} data-chart={id}>
          <thead><tr><th scope="col">{horizontal ? 'Name' : 'Day'}</th>{series.map((s) => <th key={s.label} scope="col">{s.label}</th>)}</tr></thead>
          <tbody>
            {labels.map((l, i) => (
              <tr key={l}><th scope="row">{l}</th>{series.map((s) => <td key={s.label}>{format(s.values[i] ?? 0)}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
