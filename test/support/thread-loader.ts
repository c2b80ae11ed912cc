// Jest setup: the specs run the TypeScript sources in-process, as `node --import
// ./test/support/swc-register.mjs` would. Saying so in process.execArgv lets the SQLite background
// writer start its worker thread with the same loader (src/database/sqlite-background-writer.ts
// passes the process's module loaders to the thread when running from the sources).
const register = new URL('./swc-register.mjs', import.meta.url).href;
if (!process.execArgv.includes(register)) process.execArgv.push('--import', register);
