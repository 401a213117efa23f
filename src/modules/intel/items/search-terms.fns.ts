import { refang, scanIocs } from '../extract/extract.fns.js';

/**
 * What `GET /items?search=` looks for besides the words of the text.
 *
 * - `refanged`: the term with defang forms undone (`evil[.]com` → `evil.com`), searched as full
 *   text too when it differs, so either spelling finds either spelling in the text;
 * - `indicatorValues`: for a single indicator-like token (no spaces, quotes or websearch
 *   operators), the normalized values it may have among the items' indicators: as typed, lower
 *   case, and the extractor's normalized form (`HXXP://Evil[.]COM/x` → `http://evil.com/x`).
 *   An item whose indicators include one of these is found even when its text spells the value
 *   differently or not at all (indicators asserted by MISP or STIX).
 */
export function searchTerms(search: string): { refanged: string; indicatorValues: string[] } {
  const refanged = refang(search).trim();
  if (refanged === '' || /[\s"]/.test(refanged) || refanged.startsWith('-')) return { refanged, indicatorValues: [] };
  const x = scanIocs(refanged);
  const whole: string[] = [];
  for (let j = 0; j < x.size; j++) {
    for (let k = 0; k < x.spanCount(j); k++) {
      if (x.spanStart(j, k) === 0 && x.spanEnd(j, k) === refanged.length) {
        whole.push(x.normalizedValue(j));
        break;
      }
    }
  }
  return { refanged, indicatorValues: [...new Set([refanged, refanged.toLowerCase(), ...whole])] };
}
