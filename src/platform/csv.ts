/**
 * The one rule for a CSV cell, used by every CSV Rampart writes (the IOC export, the MISP
 * feed's hashes.csv, the console's IOC download): RFC 4180 quoting, and OWASP's CSV-injection
 * rule — a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return is prefixed with
 * `'` so no spreadsheet evaluates it. A number we write is a number (never prefixed); text that
 * happens to look numeric ("-1", "-1+cmd|' /C calc'!A0") is still text and is prefixed.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record; RFC 4180 ends lines with CRLF (MISP's hashes.csv uses LF). */
export function csvRow(cells: ReadonlyArray<string | number | null | undefined>, eol: '\r\n' | '\n' = '\r\n'): string {
  return `${cells.map(csvCell).join(',')}${eol}`;
}
