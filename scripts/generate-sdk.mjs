// Generates the TypeScript SDK's types, sdk/schema.d.ts, from the committed openapi.json with
// openapi-typescript (the client itself is openapi-fetch, wrapped in sdk/client.ts).
//
//   node scripts/generate-sdk.mjs           write sdk/schema.d.ts   (npm run sdk)
//   node scripts/generate-sdk.mjs --check   fail when it differs from what openapi.json gives
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'sdk/schema.d.ts');

function generate(output) {
  execFileSync(
    join(root, 'node_modules/.bin/openapi-typescript'),
    [join(root, 'openapi.json'), '--output', output, '--redocly', join(root, 'scripts/sdk.redocly.yaml'), '--silent'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return readFileSync(output, 'utf8');
}

if (process.argv.includes('--check')) {
  const scratch = mkdtempSync(join(tmpdir(), 'shortlink-sdk-'));
  try {
    const fresh = generate(join(scratch, 'schema.d.ts'));
    if (readFileSync(target, 'utf8') !== fresh) {
      console.error('sdk/schema.d.ts is stale: run `npm run sdk` and commit the result.');
      process.exit(1);
    }
    console.log('sdk/schema.d.ts matches openapi.json.');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  generate(target);
  console.log('Wrote sdk/schema.d.ts');
}
