// Run by the Dockerfile's build stage after `npm prune --omit=dev`: deletes from node_modules what
// none of the image's three programs loads: the service (dist/src/main.js), the `shortlink` CLI
// and the Prisma CLI for `prisma migrate deploy` / `prisma migrate status` (the two Prisma
// commands an administrator runs in the container). test/container/image.sh runs all three, on
// SQLite and on PostgreSQL, and fails when the image grows past its size budget
// (docs/operations.md, "Containers").
//
//   node scripts/slim-node-modules.mjs [appDir]      (default: the current directory)
//
// 1. Packages: everything reachable from package.json's dependencies through the lockfile is
//    kept, except the edges cut below; the rest is deleted.
// 2. Files inside kept packages that those programs never open (TRIM).
// 3. Everywhere: source maps, type declarations, TypeScript sources and Markdown.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const app = path.resolve(process.argv[2] ?? '.');
const modules = path.join(app, 'node_modules');

/**
 * Dependencies followed only in part. The Prisma CLI requires two of Prisma's development tools
 * at start-up, but only modules of them that need little:
 * - @prisma/studio-core: Prisma Studio. The CLI loads its data adapters (dist/data/*), which
 *   require nothing; its web UI (React, visx, d3, elkjs, lodash…) is for `prisma studio` only.
 * - @prisma/dev: the local Prisma Postgres server of `prisma dev` (PGlite and its extensions, a
 *   query executor, a streams server). The CLI loads its state module (dist/state.cjs), which
 *   requires these helpers only.
 * @type {Record<string, string[]>}
 */
const FOLLOW_ONLY = {
  '@prisma/studio-core': [],
  '@prisma/dev': ['get-port-please', 'pathe', 'proper-lockfile', 'remeda', 'std-env', 'valibot', 'zeptomatch'],
};

/**
 * Packages never followed, whoever depends on them:
 * - typescript: an optional peer of @nestjs/swagger (its compile-time plugin only) and of the
 *   Prisma CLI (which prints its version when present); npm keeps it because the build had it.
 * - @types/*: type declarations.
 * - mysql2, postgres: the Prisma CLI imports these drivers for Prisma Studio only.
 * - prebuild-install: better-sqlite3's install script; the compiled addon is kept.
 */
const NEVER = [/^typescript$/, /^@types\//, /^mysql2$/, /^postgres$/, /^prebuild-install$/];

/**
 * Files inside kept packages, by path relative to the package.
 * @type {Record<string, RegExp[]>}
 */
const TRIM = {
  // Studio's web UI and the ES-module builds; the CLI requires dist/data/*/index.cjs.
  '@prisma/studio-core': [/^dist\/ui\//, /^dist\/.*\.js$/, /^dist\/metafile-/],
  // PGlite's PostgreSQL extensions, for `prisma dev`.
  '@prisma/dev': [/^dist\/runtime-assets\//],
  // Query compilers (copied by `prisma generate`, which runs in the build stage), Prisma Studio's
  // page, and the helper that opens it in a browser.
  prisma: [/^build\/query_compiler_/, /^build\/studio\.(js|css)$/, /^build\/xdg-open$/],
  // The generated clients (ES modules, prisma/*/schema.prisma) import the `small` compiler of
  // SQLite and PostgreSQL as .mjs; the others are for other databases, builds and module formats.
  '@prisma/client': [
    /^runtime\/query_compiler_(?!small_bg\.(sqlite|postgresql)\.(mjs|wasm-base64\.mjs)$)/,
    /^runtime\/wasm-compiler-edge\./,
  ],
  // prisma/engine/wasm-engine.js reads the same engine from the prisma package (build/), and
  // this copy only when that one is missing.
  '@prisma/schema-engine-wasm': [/^schema_engine_bg\.wasm$/],
  // SQLite's and the addon's C sources and the compiler's intermediate files; `bindings` loads
  // build/Release/better_sqlite3.node.
  'better-sqlite3': [/^deps\//, /^src\//, /^build\/(?!Release\/better_sqlite3\.node$)/],
  // @prisma/config requires effect's CommonJS build (dist/cjs), never its ES modules.
  effect: [/^dist\/esm\//],
  // The visitor labels read the IPv4-only and IPv6-only files, each when first needed
  // (src/clicks/visitors/country-lookup.ts), never the combined copy of the same data (7.5 MiB).
  '@ip-location-db/geo-whois-asn-country-mmdb': [/^geo-whois-asn-country\.mmdb$/],
};

/** Never opened at run time (no --enable-source-maps; Node.js does not run .ts from node_modules). */
const EVERYWHERE = /\.(map|ts|mts|cts|md)$/;
/** Licences stay, whatever their extension. */
const LICENSE = /(^|\/)(licen[cs]e|notice|copying)[^/]*$/i;

const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
/** @type {Record<string, { dependencies?: Record<string, string>, optionalDependencies?: Record<string, string>, peerDependencies?: Record<string, string> }>} */
const packages = lock.packages;

/** The lockfile key a package at `from` gets for `name`, as Node resolves it (nearest node_modules up). */
function resolve(from, name) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (candidate in packages && existsSync(path.join(app, candidate))) return candidate;
    if (!dir) return undefined;
  }
}

/** @param {string} key */
const nameOf = (key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

const kept = new Set(['']);
const queue = [''];
while (queue.length > 0) {
  const key = /** @type {string} */ (queue.pop());
  const entry = packages[key];
  const names = Object.keys({
    ...entry.dependencies,
    ...entry.optionalDependencies,
    ...(key === '' ? {} : entry.peerDependencies),
  });
  const only = key === '' ? undefined : FOLLOW_ONLY[nameOf(key)];
  for (const name of names) {
    if (only && !only.includes(name)) continue;
    if (NEVER.some((pattern) => pattern.test(name))) continue;
    const target = resolve(key, name);
    // Optional dependencies for other platforms and optional peers are not installed.
    if (target === undefined || kept.has(target)) continue;
    kept.add(target);
    queue.push(target);
  }
}

let freed = 0;
/** @param {string} file */
function remove(file) {
  freed += sizeOf(file);
  rmSync(file, { recursive: true, force: true });
}
/** @param {string} file */
function sizeOf(file) {
  const stat = lstatSync(file);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(file).reduce((sum, child) => sum + sizeOf(path.join(file, child)), 0);
}
/** Files below `dir`, as paths relative to it. @param {string} dir */
function* walk(dir, prefix = '') {
  for (const child of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${child.name}` : child.name;
    if (child.isDirectory()) yield* walk(dir, relative);
    else yield relative;
  }
}

// Longest keys first: a nested package goes before (or with) the one that contains it.
const installed = Object.keys(packages)
  .filter((key) => key.startsWith('node_modules/') && existsSync(path.join(app, key)))
  .sort((a, b) => b.length - a.length);
for (const key of installed) {
  if (!kept.has(key)) remove(path.join(app, key));
}

for (const key of installed.filter((key) => kept.has(key))) {
  const dir = path.join(app, key);
  const trim = TRIM[nameOf(key)] ?? [];
  for (const file of [...walk(dir)]) {
    // Files of nested packages are their own package's business.
    if (file.includes('node_modules/')) continue;
    const unused = (EVERYWHERE.test(file) && !LICENSE.test(file)) || trim.some((pattern) => pattern.test(file));
    if (unused) remove(path.join(dir, file));
  }
}

// The bin links of deleted packages.
const bin = path.join(modules, '.bin');
for (const link of existsSync(bin) ? readdirSync(bin) : []) {
  if (!existsSync(path.join(bin, link))) rmSync(path.join(bin, link));
}

console.log(`slim-node-modules: ${(freed / 1048576).toFixed(1)} MiB deleted from ${modules}`);
