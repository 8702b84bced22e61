#!/usr/bin/env node
// The sdg admin CLI. dist/ is built by `npm install` (the prepare script) and by `npm start`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/cli.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('sdg: the build is missing; run `npm run build` (npm install does it) first.');
  process.exit(1);
}
await import(entry.href);
