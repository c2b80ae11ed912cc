import { jsonNestsDeeperThan } from './json-body-parser.js';

describe('jsonNestsDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":{}}', 1, true],
    ['{"a":{}}', 2, false],
    ['[[[]]]', 2, true],
    ['[[[]]]', 3, false],
    ['[1,[2],[3],[4]]', 2, false],
    ['{"url":"https://example.com/{{{{[[[["}', 1, false],
    ['{"a":"\\"{{{{"}', 1, false],
    ['"just a string"', 0, false],
    ['42', 0, false],
  ])('%s with limit %i → %s', (text, limit, expected) => {
    expect(jsonNestsDeeperThan(text, limit)).toBe(expected);
  });

  it('handles very deep input without recursion', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);

    expect(jsonNestsDeeperThan(deep, 32)).toBe(true);
  });
});
