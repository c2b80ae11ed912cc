// Writes openapi.json: the OpenAPI document the code generates (see src/openapi/).
//
//   node scripts/generate-openapi.mjs           from the TypeScript sources, compiled by SWC
//   node scripts/generate-openapi.mjs --check   compare instead of writing; fail when stale
//   add --dist                                  use the production build in dist/ (tsc) instead
//
// `npm run openapi` regenerates src/metadata.ts first, then this file. CI runs
// `--check --dist` after `npm run build`, and the tests compare the SWC-compiled output, so the
// committed document is proven identical whichever compiler built the app.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'openapi.json');
const fromDist = process.argv.includes('--dist');

let generator;
if (fromDist) {
  generator = join(root, 'dist/src/openapi/openapi.generator.js');
} else {
  // Runs the .ts sources directly, with the same .swcrc as Jest.
  await import('../test/support/swc-register.mjs');
  generator = join(root, 'src/openapi/openapi.generator.ts');
}
const { generateOpenApiJson } = await import(pathToFileURL(generator).href);
const json = await generateOpenApiJson();

if (process.argv.includes('--check')) {
  const source = fromDist ? 'the build in dist/' : 'the sources';
  if (readFileSync(target, 'utf8') !== json) {
    console.error(`openapi.json differs from what ${source} generate: run \`npm run openapi\` and commit the result.`);
    process.exit(1);
  }
  console.log(`openapi.json matches what ${source} generate.`);
} else {
  writeFileSync(target, json);
  console.log('Wrote openapi.json');
}
