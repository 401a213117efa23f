import { aiSdk } from '../../platform/ai-sdk.js';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';

/**
 * A run failure as a message a person can act on: the model provider's status and message for
 * API errors, never a stack trace or a request body (which could hold secrets); what the
 * provider said goes through the one redaction (an echoed key or URL secret is not stored).
 */
export function describeRunError(err: unknown): string {
  const { APICallError, NoObjectGeneratedError, NoOutputGeneratedError, RetryError } = aiSdk(); // a run loaded it
  if (RetryError.isInstance(err)) return describeRunError(err.lastError);
  if (APICallError.isInstance(err)) {
    const where = safeHost(err.url);
    const status = err.statusCode ? `HTTP ${err.statusCode}` : 'no response';
    return `Model call to ${where} failed (${status}): ${truncate(err.message)}`;
  }
  if (NoObjectGeneratedError.isInstance(err)) return truncate(err.cause instanceof Error ? err.cause.message : err.message);
  if (NoOutputGeneratedError.isInstance(err)) return truncate(err.message);
  if (err instanceof Error) return truncate(err.message);
  return 'Unknown error';
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the model provider';
  }
}

function truncate(text: string, max = 500): string {
  const s = redactSecrets(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Why a run with missing or mistyped declared inputs did not run; triggered runs get the way to fix it. */
export function inputProblemsMessage(problems: ReadonlyArray<{ name: string; message: string }>, triggered: boolean): string {
  const list = problems.map((p) => `input "${p.name}" ${p.message}`).join('; ');
  const hint = triggered ? ' (map inputs from the payload with the trigger\'s inputMapping)' : '';
  return `Not run: ${list}${hint}`;
}

/** Why a run ended without its job finishing it: the job failed for good (`reason`: its last error, or null when it is gone). */
export function jobFailedMessage(reason: string | null): string {
  return `The run could not finish: its job failed for good (${truncate(reason ?? 'it is gone')})`;
}

/** Why the run sweep ended a run still `running` far past its limit. */
export function overdueMessage(maxDurationMs: number): string {
  return `Time limit of ${maxDurationMs / 1000}s exceeded long ago, and the worker running it stopped reporting`;
}
