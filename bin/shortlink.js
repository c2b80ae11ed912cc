#!/usr/bin/env node
// The `shortlink` command installed by the package. It runs the compiled CLI, so the package must
// be built first (`npm run build`, which `npm start` also runs).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('shortlink: the CLI is not built yet (dist/src/cli/main.js is missing); run `npm run build` first');
  process.exit(1);
}
await import(entry.href);
