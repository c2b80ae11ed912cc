import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one of Node's tick objects (what `process.nextTick` queues: `{ [async_id_symbol],
 * [trigger_async_id_symbol], callback, args }`) alive for as long as the process runs, so that
 * V8 never collects the hidden classes ("maps") those objects share.
 *
 * Why: every request runs 8-9 `nextTick`s inside Node's streams and sockets, and V8 builds each
 * tick object inline from what `nextTick` learned about those maps. It remembers them weakly, and
 * between two bursts of work no tick object is alive: a full garbage collection at such a moment
 * collected the maps, the next `nextTick` found its memory of them cleared, and V8 marked the
 * object literal megamorphic for good. From then on it built every tick object through its runtime,
 * four calls of ~1,100 instructions each: counted under valgrind, 30,000-40,000 instructions more
 * per cached redirect, a third of its cost. It happened in most starts of the service (its full
 * collections are frequent, see main.ts's `--heap-growing-percent`) and in none of bare node:http
 * (docs/performance.md, "Cached redirects counted in instructions"; test/tick-object-shapes.spec.ts).
 * Plain Node.js does the same, 20 and 22 alike: bench/studies/tick-object-maps.mjs shows it.
 *
 * Inside a `nextTick` callback Node's current async resource is the tick object itself. Kept here,
 * its map stays alive and holds the maps before it (each map points to the one it was made from).
 * Imported first by main.ts, before `nextTick` has run often enough to remember anything: the
 * service's process only (the CLI and the tests' in-process apps do not load main.ts).
 */
/** The one tick object kept (an array so that the module has nothing to reassign). */
export const keptTickObjects: object[] = [];

process.nextTick(() => keptTickObjects.push(executionAsyncResource()));
