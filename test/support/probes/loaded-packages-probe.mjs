// `node --import ./test/support/probes/loaded-packages-probe.mjs …`: when the process exits, writes the
// npm packages whose CommonJS modules it loaded (Node's require cache, which also holds those an
// ES module imported) to the file in LOADED_PACKAGES_FILE, one name per line. For
// test/loaded-packages.e2e-spec.ts.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const out = process.env.LOADED_PACKAGES_FILE;
if (out) {
  process.on('exit', () => {
    const names = new Set();
    for (const file of Object.keys(require.cache)) {
      const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
      if (match) names.add(match[1].replace('\\', '/'));
    }
    writeFileSync(out, [...names].sort().join('\n'));
  });
}
