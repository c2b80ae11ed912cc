// Node module hooks that run the TypeScript sources directly, compiled by SWC with the same
// .swcrc as Jest. The end-to-end specs start the CLI and the server as real child processes
// this way, so they test the current sources without needing `npm run build` first.
//
// The hooks are synchronous, for `module.registerHooks()` (Node.js 22.15+, in the thread that
// registers them); they also serve `module.register()`, deprecated since Node.js 26 (DEP0205),
// whose chain hands back promises: `swc-register.mjs` picks the one this Node.js has.
import { readFileSync } from 'node:fs';
import { transformSync } from '@swc/core';

const swcrc = JSON.parse(readFileSync(new URL('../../.swcrc', import.meta.url), 'utf8'));
delete swcrc.$schema;

export function resolve(specifier, context, nextResolve) {
  // Sources import siblings as './x.js' (NodeNext); on disk they are './x.ts'. A real .js file
  // next to the TypeScript source (e.g. prisma/engine) resolves as it is.
  if (/^\.{1,2}\/.*\.js$/.test(specifier) && context.parentURL?.endsWith('.ts')) {
    const asIs = () => nextResolve(specifier, context);
    try {
      const resolved = nextResolve(specifier.replace(/\.js$/, '.ts'), context);
      return typeof resolved?.then === 'function' ? resolved.catch(asIs) : resolved;
    } catch {
      return asIs();
    }
  }
  return nextResolve(specifier, context);
}

export function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const source = readFileSync(new URL(url), 'utf8');
  const { code } = transformSync(source, {
    ...swcrc,
    filename: new URL(url).pathname,
    swcrc: false,
    sourceMaps: 'inline',
    module: { type: 'es6' },
  });
  return { format: 'module', source: code, shortCircuit: true };
}
