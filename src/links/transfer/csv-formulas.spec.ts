import { escapeFormula, unescapeFormula } from './csv-formulas.js';

describe('escapeFormula / unescapeFormula', () => {
  it.each([
    ['-2-3', "'-2-3"],
    ['-A1-B1', "'-A1-B1"],
    ['=1+1', "'=1+1"],
    ['+x', "'+x"],
    ['@x', "'@x"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['＝1+1', "'＝1+1"],
    ['－1', "'－1"],
    ["'=x", "''=x"],
    ["'abc", "''abc"],
    ["'", "''"],
  ])('prefixes %j as %j', (cell, escaped) => {
    expect(escapeFormula(cell)).toBe(escaped);
  });

  it.each(['', 'abc', 'Ab3dE9x', '_x-', 'https://example.com/?a=-1', '2024-01-02T03:04:05.000Z', '0', ' -1'])(
    'leaves %j as it is',
    (cell) => {
      expect(escapeFormula(cell)).toBe(cell);
    },
  );

  it.each([
    '',
    'abc',
    '-2-3',
    '=1+1',
    '@x',
    "'",
    "''",
    "'abc",
    "'=x",
    "''=x",
    "'-'",
    '\t',
    "'\r",
    'https://example.com/',
  ])('reads %j back unchanged', (cell) => {
    const sut = unescapeFormula(escapeFormula(cell));

    expect(sut).toBe(cell);
    expect(escapeFormula(cell)).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("keeps a quote that escapeFormula did not add (another tool's cell)", () => {
    expect(unescapeFormula("'abc")).toBe("'abc");
    expect(unescapeFormula("'")).toBe("'");
    expect(unescapeFormula('abc')).toBe('abc');
  });
});
