import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = join(ROOT, 'scripts', 'prisma-compiler-from-file.mjs');
const KINDS = ['sqlite', 'postgresql'] as const;
const require = createRequire(import.meta.url);

const specifier = (kind: string): string => `@prisma/client/runtime/query_compiler_small_bg.${kind}.wasm-base64.mjs`;
const generatedClass = (root: string, kind: string): string =>
  join(root, 'src', 'generated', kind, 'internal', 'class.ts');

/** What `prisma generate` (7.x) writes for loading the compiler, inside the rest of a client. */
function prismaGenerated(kind: string): string {
  return [
    'config.compilerWasm = {',
    '  getQueryCompilerWasmModule: async () => {',
    `    const { wasm } = await import("${specifier(kind)}")`,
    '    return await decodeBase64AsWasm(wasm)',
    '  },',
    '}',
    '',
  ].join('\n');
}

function runScript(root: string): { status: number | null; stderr: string } {
  const { status, stderr } = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status, stderr };
}

describe("the Prisma clients' query compiler, read from its file (scripts/prisma-compiler-from-file.mjs)", () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'compiler-from-file-'));
    for (const kind of KINDS) mkdirSync(dirname(generatedClass(scratch, kind)), { recursive: true });
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(KINDS)('the %s client reads the compiler from its file and never imports the base64 module', (kind) => {
    const source = readFileSync(generatedClass(ROOT, kind), 'utf8');
    expect(source).not.toMatch(/import\(\s*["']@prisma\/client\/runtime\/query_compiler[^"']*wasm-base64/);
    expect(source).toContain(`readFile(createRequire(import.meta.url).resolve("${specifier(kind)}"), 'latin1')`);
  });

  it.each(KINDS)(
    'the %s text between the first and last quote is the base64 the module exports, a WebAssembly module',
    async (kind) => {
      const { wasm } = (await import(specifier(kind))) as { wasm: string };
      const text = readFileSync(require.resolve(specifier(kind)), 'latin1');
      const read = text.slice(text.indexOf('"') + 1, text.lastIndexOf('"'));
      expect(read.length).toBeGreaterThan(1_000_000);
      expect(read).toBe(wasm);
      // A WebAssembly module: its magic number and version 1.
      expect([...Buffer.from(read, 'base64').subarray(0, 8)]).toEqual([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    },
  );

  it('patches what prisma generate writes, once', () => {
    for (const kind of KINDS) writeFileSync(generatedClass(scratch, kind), prismaGenerated(kind));
    expect(runScript(scratch)).toEqual({ status: 0, stderr: '' });
    const patched = KINDS.map((kind) => readFileSync(generatedClass(scratch, kind), 'utf8'));
    for (const [i, kind] of KINDS.entries()) {
      expect(patched[i]).not.toContain('await import("@prisma/client/runtime/');
      expect(patched[i]).toContain(`resolve("${specifier(kind)}")`);
    }
    // A second run (every npm install runs it) leaves the clients as they are.
    expect(runScript(scratch)).toEqual({ status: 0, stderr: '' });
    expect(KINDS.map((kind) => readFileSync(generatedClass(scratch, kind), 'utf8'))).toEqual(patched);
  });

  it('fails, naming the file, when a client loads the compiler some other way (a new Prisma version)', () => {
    const changed = prismaGenerated('sqlite').replace('decodeBase64AsWasm(wasm)', 'decodeWasm(wasm)');
    writeFileSync(generatedClass(scratch, 'sqlite'), changed);
    writeFileSync(generatedClass(scratch, 'postgresql'), prismaGenerated('postgresql'));
    const { status, stderr } = runScript(scratch);
    expect(status).toBe(1);
    expect(stderr).toContain(join('src', 'generated', 'sqlite', 'internal', 'class.ts'));
    expect(stderr).toContain('Update scripts/prisma-compiler-from-file.mjs');
    expect(readFileSync(generatedClass(scratch, 'sqlite'), 'utf8')).toBe(changed);
  });
});
