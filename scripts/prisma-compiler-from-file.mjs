#!/usr/bin/env node
// Run after `prisma generate` (npm run prisma:generate, so also by `npm install`): makes each
// generated client read its query compiler's WebAssembly from the package's file instead of
// importing it as a module.
//
// Why: the generated client loads the compiler with
// `await import("@prisma/client/runtime/query_compiler_small_bg.<kind>.wasm-base64.mjs")`, a
// module holding the 1.6 MB of WebAssembly as one base64 string literal. An imported module stays
// loaded for the life of the process, so its 2.2 MB source and the 2.2 MB string it exports stay
// on the heap long after the compiler is built from them: 4.2 MB of the service's ~50 MB of live
// heap (docs/performance.md, "Memory"). Read as a file, the text is garbage once the
// WebAssembly.Module exists. Same file, same bytes, same decoder as Prisma's own code.
//
// The replaced lines are matched exactly: when a Prisma upgrade changes them, this script fails
// (and with it `npm install`) instead of leaving the client unpatched without anyone noticing;
// test/prisma-compiler-from-file.spec.ts checks both clients.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The project's root; another one as the argument (the spec runs this on copies).
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const MARK = 'shortlink: read as a file';

for (const kind of ['sqlite', 'postgresql']) {
  const file = path.join(root, 'src', 'generated', kind, 'internal', 'class.ts');
  const source = readFileSync(file, 'utf8');
  if (source.includes(MARK)) continue;
  const specifier = `@prisma/client/runtime/query_compiler_small_bg.${kind}.wasm-base64.mjs`;
  const generated =
    `    const { wasm } = await import("${specifier}")\n` + `    return await decodeBase64AsWasm(wasm)\n`;
  const replacement =
    `    // ${MARK} (scripts/prisma-compiler-from-file.mjs): an imported module would keep its\n` +
    `    // base64 text on the heap for the life of the process.\n` +
    `    const { readFile } = await import('node:fs/promises')\n` +
    `    const { createRequire } = await import('node:module')\n` +
    `    const text = await readFile(createRequire(import.meta.url).resolve("${specifier}"), 'latin1')\n` +
    `    return await decodeBase64AsWasm(text.slice(text.indexOf('"') + 1, text.lastIndexOf('"')))\n`;
  if (!source.includes(generated)) {
    console.error(
      `${path.relative(root, file)}: the query compiler is no longer loaded as this script expects ` +
        `(a new Prisma version?). Update scripts/prisma-compiler-from-file.mjs.`,
    );
    process.exit(1);
  }
  writeFileSync(file, source.replace(generated, replacement));
}
