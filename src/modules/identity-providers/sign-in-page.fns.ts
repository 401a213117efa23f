/**
 * The page a refused sign-in answers: plain HTML (the person arrived by a browser redirect from
 * their identity provider, not through the console's scripts), every value escaped, no script,
 * no style, nothing loaded from anywhere.
 */
export const REFUSAL_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function refusalPage(reason: string, signInUrl: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer"><title>Sign-in refused · Rampart</title></head>',
    '<body><main>',
    '<h1>Sign-in refused</h1>',
    `<p id="reason">${escapeHtml(reason)}</p>`,
    '<p>Nothing was changed in Rampart. If you think this is wrong, give this page\'s time to your Rampart administrator: the refusal is in the audit log.</p>',
    `<p><a href="${escapeHtml(signInUrl)}">Back to sign-in</a></p>`,
    '</main></body></html>',
  ].join('\n');
}
