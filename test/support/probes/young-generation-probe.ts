import v8 from 'node:v8';
import { defineWriterTask } from '../../../src/database/sqlite-writer-protocol.js';

/**
 * A writer task for specs: allocates short-lived objects on the writer's thread, as a click fold
 * does, until V8 has grown the thread's young generation as far as it may, then answers the size
 * of its new space in KiB.
 */
export const youngGenerationProbe = defineWriterTask<Record<string, never>>(
  import.meta.url,
  'youngGenerationProbe',
  () => {
    let kept: Array<{ n: number; text: string }> = [];
    for (let i = 0; i < 2_000_000; i++) {
      kept.push({ n: i, text: `row ${i}` });
      if (kept.length > 20_000) kept = [];
    }
    const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    return Promise.resolve(Math.round((newSpace?.space_size ?? 0) / 1024));
  },
);
