#!/usr/bin/env node
// The `rampart` command: runs the TypeScript sources through tsx (no build step to forget).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
