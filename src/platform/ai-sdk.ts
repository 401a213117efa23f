/**
 * The AI SDK (`ai`), loaded by the first agent run instead of at start-up: the API process
 * never runs an agent, and the SDK with its provider utilities is ~20 MiB and a few hundred ms
 * of start-up (docs/performance.md, start-up and memory). Code that runs within a run awaits
 * loadAiSdk() once; synchronous helpers called after that read aiSdk().
 */
export type AiSdk = typeof import('ai');

let sdk: AiSdk | undefined;

export async function loadAiSdk(): Promise<AiSdk> {
  return (sdk ??= await import('ai'));
}

export function aiSdk(): AiSdk {
  if (!sdk) throw new Error('the AI SDK was used before loadAiSdk() (it is loaded at the start of a run)');
  return sdk;
}

/**
 * The AI SDK's `tool()` without loading the SDK: the SDK's is the identity function that only
 * types its argument (test/platform/startup-imports.test.ts checks it still is), and tools are declared by
 * modules the API process imports, which must not load the SDK.
 */
export const tool: typeof import('ai').tool = ((definition: unknown) => definition) as typeof import('ai').tool;
