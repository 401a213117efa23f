import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { openApiDocument } from './openapi-document.js';

/**
 * The web console's API types, generated from this code's own OpenAPI document
 * (`npm run gen:api` writes them; test/console/console-api-types.test.ts fails when they are stale).
 */
export const API_TYPES_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/src/api/schema.d.ts');

export async function generateApiTypes(): Promise<string> {
  const document = await openApiDocument();
  // The version stays out of the file so that only contract changes change it.
  const ast = await openapiTS(document as never, { alphabetize: true });
  return `${COMMENT_HEADER.replace('openapi-typescript.', 'openapi-typescript from Rampart\'s OpenAPI document\n * (npm run gen:api).')}${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  fs.mkdirSync(path.dirname(API_TYPES_FILE), { recursive: true });
  fs.writeFileSync(API_TYPES_FILE, await generateApiTypes());
  process.stdout.write(`wrote ${path.relative(process.cwd(), API_TYPES_FILE)}\n`);
}
