import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingNodeFlags, NODE_FLAGS, semiSpaceFlagMb } from './node-flags.js';

const root = join(import.meta.dirname, '..');
const entry = 'dist/src/main.js';

/** What a `node … dist/src/main.js` command line passes to node before the entry point. */
function flagsBefore(command: string): string[] {
  const words = command.split(/\s+/);
  return words.slice(words.lastIndexOf('node') + 1, words.indexOf(entry));
}

describe('NODE_FLAGS', () => {
  it('are what package.json starts the service with', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };

    expect(flagsBefore(scripts.start)).toEqual(NODE_FLAGS);
    expect(flagsBefore(scripts['start:prod'])).toEqual(NODE_FLAGS);
  });

  it("are what the container's CMD starts the service with", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));

    expect(JSON.parse(cmd?.[1] ?? '[]')).toEqual(['node', ...NODE_FLAGS, entry]);
  });
});

describe('missingNodeFlags', () => {
  it('finds none when node was given them on its command line', () => {
    expect(missingNodeFlags([...NODE_FLAGS], undefined)).toEqual([]);
  });

  it('finds none when they came in NODE_OPTIONS', () => {
    expect(missingNodeFlags(['--enable-source-maps'], ` ${NODE_FLAGS.join(' ')} --trace-warnings`)).toEqual([]);
  });

  it('lists those that were not given', () => {
    expect(missingNodeFlags([], '')).toEqual(NODE_FLAGS);
  });
});

describe('semiSpaceFlagMb', () => {
  it('reads the semi-space size from the command line or NODE_OPTIONS, the command line first', () => {
    expect(semiSpaceFlagMb(['--max-semi-space-size=8', '--v8-pool-size=1'], undefined)).toBe(8);
    expect(semiSpaceFlagMb(['--max-semi-space-size', '4'], '')).toBe(4);
    expect(semiSpaceFlagMb([], '--inspect --max_semi_space_size=2')).toBe(2);
    expect(semiSpaceFlagMb(['--max-semi-space-size=8'], '--max-semi-space-size=2')).toBe(8);
  });

  it('answers 0 (V8 chooses) when neither sets it', () => {
    expect(semiSpaceFlagMb(['--v8-pool-size=1'], undefined)).toBe(0);
    expect(semiSpaceFlagMb(['--max-semi-space-size'], '--max-old-space-size=100')).toBe(0);
  });
});
