import { toSqliteDateTime } from './sqlite-background-writer.js';
import { fromSqliteDateTime } from './sqlite-date-time.js';

describe('fromSqliteDateTime', () => {
  const stored = '2026-03-01T12:34:56.789+00:00';

  it('reads a stored time as the Date of that instant, printed as the API prints dates', () => {
    const date = fromSqliteDateTime(stored);
    expect(date).toBeInstanceOf(Date);
    expect(date.getTime()).toBe(Date.UTC(2026, 2, 1, 12, 34, 56, 789));
    expect(date.toISOString()).toBe('2026-03-01T12:34:56.789Z');
    expect(JSON.stringify({ at: date })).toBe('{"at":"2026-03-01T12:34:56.789Z"}');
    expect(new Date(date).toISOString()).toBe('2026-03-01T12:34:56.789Z');
  });

  it('reads back what toSqliteDateTime writes, whatever the instant', () => {
    for (const ms of [0, 1, 86_399_999, Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2026, 10, 26, 0, 0, 0, 10)]) {
      const date = fromSqliteDateTime(toSqliteDateTime(new Date(ms)));
      expect(date.getTime()).toBe(ms);
      expect(date.toISOString()).toBe(new Date(ms).toISOString());
    }
  });

  it('prints the time it holds once it has been changed, not the stored text', () => {
    const date = fromSqliteDateTime(stored);
    date.setUTCFullYear(2030);
    expect(date.toISOString()).toBe('2030-03-01T12:34:56.789Z');
    date.setTime(0);
    expect(JSON.stringify(date)).toBe('"1970-01-01T00:00:00.000Z"');
  });

  it('reads any other text as new Date does', () => {
    for (const text of ['2026-03-01 12:34:56', '2026-03-01T12:34:56Z', '2026-03-01T14:34:56.789+02:00']) {
      expect(fromSqliteDateTime(text).getTime()).toBe(new Date(text).getTime());
      expect(fromSqliteDateTime(text).toISOString()).toBe(new Date(text).toISOString());
    }
    expect(Number.isNaN(fromSqliteDateTime('not a time').getTime())).toBe(true);
  });
});
