import { BASE62, randomBase62 } from './random.js';

describe('randomBase62', () => {
  it('uses exactly the 62 characters [0-9A-Za-z]', () => {
    expect(BASE62).toHaveLength(62);
    expect(new Set(BASE62).size).toBe(62);
    expect(BASE62).toMatch(/^[0-9A-Za-z]+$/);
  });

  it.each([1, 7, 40, 300])('returns exactly %i characters', (length) => {
    const sut = randomBase62(length);

    expect(sut).toHaveLength(length);
    expect(sut).toMatch(/^[0-9A-Za-z]*$/);
  });

  it('returns an empty string for length 0', () => {
    expect(randomBase62(0)).toBe('');
  });

  it('does not repeat itself', () => {
    const codes = new Set(Array.from({ length: 10_000 }, () => randomBase62(7)));

    expect(codes.size).toBe(10_000);
  });

  it('draws every character about equally often', () => {
    const samples = 620_000;
    const counts = new Map<string, number>();
    for (const char of randomBase62(samples)) counts.set(char, (counts.get(char) ?? 0) + 1);

    // Every character appears, and a chi-square test over 61 degrees of freedom stays far below
    // what a bias such as a plain `byte % 62` (the first 8 characters ~25% likelier) produces.
    expect(counts.size).toBe(62);
    const expected = samples / 62;
    const chiSquare = [...counts.values()].reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // p = 0.0001 critical value for 61 degrees of freedom is about 113; `byte % 62` gives about 4000.
    expect(chiSquare).toBeLessThan(113);
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.05);
  });
});
