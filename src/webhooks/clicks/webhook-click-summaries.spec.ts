import { summaryBody } from './webhook-click-summaries.js';

describe('summaryBody', () => {
  it('is a link.clicked message with the clicks, the bots among them and the window', () => {
    const now = new Date('2026-11-26T10:01:00.000Z');
    const body = summaryBody(
      { code: 'Ab3dE9x', clicks: 12, bots: 5, since: new Date('2026-11-26T10:00:00.000Z') },
      now,
    );

    expect(JSON.parse(body)).toEqual({
      type: 'link.clicked',
      timestamp: '2026-11-26T10:01:00.000Z',
      data: { code: 'Ab3dE9x', clicks: 12, bots: 5, from: '2026-11-26T10:00:00.000Z', to: '2026-11-26T10:01:00.000Z' },
    });
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['type', 'timestamp', 'data']);
  });
});
