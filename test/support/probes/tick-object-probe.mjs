// Loaded into the service under test (NODE_OPTIONS=--import) by test/tick-object-shapes.spec.ts.
// On SIGURG, a full garbage collection (twice, so that weak references to what died are cleared);
// on SIGWINCH, a description of `process.nextTick` on stdout, its feedback slots included. Neither
// signal is one that Nest's shutdown hooks or Node's inspector listen to.
// V8 reads natives syntax (`%…`) only in code parsed after the flag is set, hence the Functions. V8
// prints through C's stdout, which passes on what it holds in blocks of 4 KiB: the test asks again
// until a whole description has reached it.
import v8 from 'node:v8';

v8.setFlagsFromString('--allow-natives-syntax');
const collectGarbage = new Function('%CollectGarbage(null)');
const debugPrint = new Function('value', '%DebugPrint(value)');
let collections = 0;
process.on('SIGURG', () => {
  collectGarbage();
  collectGarbage();
  process.stdout.write(`collected ${++collections}\n`);
});
process.on('SIGWINCH', () => debugPrint(process.nextTick));
