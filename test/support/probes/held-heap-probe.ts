import v8 from 'node:v8';
import { defineWriterTask } from '../../../src/database/sqlite-writer-protocol.js';

/**
 * A writer task for specs: holds `holdMb` MB of small objects on the writer's thread until it
 * ends, as a fold's part holds its packed tallies (they outlive the thread's small young
 * generation and are promoted), then answers the thread's used heap in KiB, measured while it
 * still holds them. `{ holdMb: 0 }` only answers the used heap.
 */
export const heldHeapProbe = defineWriterTask<{ holdMb: number }>(
  import.meta.url,
  'heldHeapProbe',
  (_db, { holdMb }) => {
    const held: Array<{ n: number; text: string }> = [];
    // About 64 bytes an entry: the object, its string and its slot in the array.
    for (let i = 0; i < (holdMb * 1024 * 1024) / 64; i++) held.push({ n: i, text: `row ${i}` });
    const usedKiB = Math.round(v8.getHeapStatistics().used_heap_size / 1024);
    // Let go only now: the objects are held until the heap was measured.
    held.length = 0;
    return Promise.resolve(usedKiB);
  },
);
