#!/usr/bin/env node
// The smallest program that shows what src/tick-object-shapes.ts works around, in plain Node.js:
// a few bursts of `process.nextTick`, a full garbage collection while no tick object is alive, more
// bursts, then the feedback V8 keeps for the tick object literal in `nextTick`. Without a kept tick
// object the collection takes the maps that feedback remembers (weakly), and the literal turns
// megamorphic for good: V8 then builds every tick object through its runtime. Seen on Node.js
// 20.20 and 22.23. Prints one line per case.
//
// Usage: node bench/studies/tick-object-maps.mjs
import { spawnSync } from 'node:child_process';
import { executionAsyncResource } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';

const CASE = process.env.TICK_OBJECT_MAPS_CASE;

if (CASE === undefined) {
  for (const kept of ['none', 'one']) {
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', fileURLToPath(import.meta.url)], {
      env: { ...process.env, TICK_OBJECT_MAPS_CASE: kept },
      encoding: 'utf8',
    });
    const slots = [...run.stdout.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
    console.log(`${process.version}, tick objects kept: ${kept}: the literal's feedback slots ${slots.join(', ')}`);
  }
} else {
  const kept = [];
  // Inside a nextTick callback the current async resource is the tick object itself.
  if (CASE === 'one') process.nextTick(() => kept.push(executionAsyncResource()));
  /** `calls` nextTicks, resolved once all have run (none is alive after). */
  const burst = (calls) =>
    new Promise((resolve) => {
      let left = calls;
      const done = () => {
        if (--left === 0) setImmediate(resolve);
      };
      for (let i = 0; i < calls; i++) process.nextTick(done);
    });
  for (let i = 0; i < 5; i++) await burst(20);
  await new Promise((resolve) => setTimeout(resolve, 10));
  globalThis.gc();
  globalThis.gc();
  for (let i = 0; i < 50; i++) await burst(200);
  // Natives syntax in a Function, so that this file parses without --allow-natives-syntax too.
  new Function('value', '%DebugPrint(value)')(process.nextTick);
}
