// Writes src/metadata.ts: what the @nestjs/swagger CLI plugin knows about the DTOs and controllers
// (property types, optionality, class-validator bounds, JSDoc descriptions and examples, return
// types), read from the TypeScript sources by Nest's PluginMetadataGenerator.
//
// Why a generated file instead of the compiler plugin: Jest compiles with SWC and `nest build`
// with tsc. The plugin only runs inside tsc, so the two builds would describe the API differently.
// Loading this file with SwaggerModule.loadPluginMetadata() gives both the same metadata.
//
// The file is committed (so a fresh clone runs without a generation step); `--check` regenerates
// it into a temporary directory and fails when the committed one is stale (see
// test/openapi.spec.ts). `npm run openapi` regenerates it before the OpenAPI document.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'src');
const FILENAME = 'metadata.ts';

/** The plugin options; the same ones `nest build` would use with the compiler plugin. */
export const PLUGIN_OPTIONS = {
  introspectComments: true,
  classValidatorShim: true,
  // Imports in the generated file end in .js, as NodeNext ES modules require.
  esmCompatible: true,
};

function generate(outputDir) {
  new PluginMetadataGenerator().generate({
    visitors: [new ReadonlyVisitor({ ...PLUGIN_OPTIONS, pathToSource: sourceDir })],
    outputDir,
    filename: FILENAME,
    // The production build's program: src only, without the specs.
    tsProgramRef: ReadonlyVisitor.createTsProgram(join(root, 'tsconfig.build.json')),
  });
  return readFileSync(join(outputDir, FILENAME), 'utf8');
}

if (process.argv.includes('--check')) {
  const scratch = mkdtempSync(join(tmpdir(), 'shortlink-metadata-'));
  try {
    const fresh = generate(scratch);
    const committed = readFileSync(join(sourceDir, FILENAME), 'utf8');
    if (fresh !== committed) {
      console.error('src/metadata.ts is stale: run `npm run openapi` and commit the result.');
      process.exit(1);
    }
    console.log('src/metadata.ts is up to date.');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  generate(sourceDir);
  console.log('Wrote src/metadata.ts');
}
