import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  missingNodeFlags,
  missingStartEnv,
  NODE_FLAGS,
  semiSpaceFlagMb,
  START_ENV,
  startCommand,
} from './node-flags.js';

const root = join(import.meta.dirname, '..');
const entry = 'dist/src/main.js';

describe('NODE_FLAGS', () => {
  // package.json's start scripts are checked whole, flags included, in START_ENV's spec below.
  it("are what the container's CMD starts the service with", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));

    expect(JSON.parse(cmd?.[1] ?? '[]')).toEqual(['node', ...NODE_FLAGS, entry]);
  });
});

/** The variables the Dockerfile's last stage (the image that runs) sets with ENV. */
function imageEnvironment(dockerfile: string): Record<string, string> {
  const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n');
  const runtime = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/.test(line)));
  const env: Record<string, string> = {};
  for (const line of runtime.filter((instruction) => /^ENV\s/.test(instruction))) {
    for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
  }
  return env;
}

describe('START_ENV', () => {
  it('is what package.json starts the service with, before the node flags', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };

    expect(startCommand()).toBe(`MALLOC_ARENA_MAX=2 node ${NODE_FLAGS.join(' ')} ${entry}`);
    expect(scripts['start:prod']).toBe(startCommand());
    expect(scripts.start).toBe(`npm run build && ${startCommand()}`);
  });

  it("is set in the container image's environment", () => {
    const env = imageEnvironment(readFileSync(join(root, 'Dockerfile'), 'utf8'));

    expect(env).toMatchObject(START_ENV);
    expect(env.NODE_ENV).toBe('production');
  });

  it('is the start command the README and the operations guide give', () => {
    for (const doc of ['README.md', 'docs/operations.md']) {
      expect(readFileSync(join(root, doc), 'utf8')).toContain(startCommand());
    }
  });
});

describe('missingStartEnv', () => {
  it('finds none when each variable has its value', () => {
    expect(missingStartEnv({ ...START_ENV, PATH: '/usr/bin' })).toEqual([]);
  });

  it('lists those unset or set to something else, as they should be set', () => {
    expect(missingStartEnv({})).toEqual(['MALLOC_ARENA_MAX=2']);
    expect(missingStartEnv({ MALLOC_ARENA_MAX: '8' })).toEqual(['MALLOC_ARENA_MAX=2']);
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
