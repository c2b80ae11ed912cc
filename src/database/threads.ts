/**
 * Running from the TypeScript sources: a worker thread's entry module is a .ts file, and the
 * thread needs the module loader that compiles it. From dist/ it is the compiled .js file and the
 * thread needs nothing.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The entry module of a worker thread in this folder (`name` without its extension). */
export function threadEntry(name: string): URL {
  return new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);
}

/**
 * The options a thread starts with: none of the parent's (Jest's, --eval input options) apply to
 * it, and some would stop it from starting. From the sources, the module loaders the process was
 * started with (`node --import <loader> src/main.ts`; the specs declare theirs the same way, see
 * test/support/thread-loader.ts), which the thread needs to import .ts files.
 */
export function threadExecArgv(): string[] {
  if (!FROM_SOURCE) return [];
  const loaders: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--import' || flag === '--loader' || flag === '--experimental-loader') {
      if (i + 1 < argv.length) loaders.push(flag, argv[++i]);
    } else if (/^--(import|loader|experimental-loader)=/.test(flag)) {
      loaders.push(flag);
    }
  }
  return loaders;
}
