import { endpointOutcomes, type AttemptRecord } from './webhook-message-store.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, second));

function attempt(endpointId: string, second: number, delivered: boolean): AttemptRecord {
  return {
    id: `${endpointId}-${second}`,
    endpointId,
    at: at(second),
    delivered,
    responseStatus: delivered ? 204 : 500,
    nextAttemptAt: delivered ? null : at(second + 5),
    disableIfFailingSince: at(second - 100),
  };
}

describe('endpointOutcomes', () => {
  it('folds a batch into one outcome per endpoint, as recording the attempts in the order they ended would', () => {
    const sut = endpointOutcomes([
      attempt('b', 3, false),
      attempt('a', 2, true),
      attempt('a', 1, false),
      attempt('b', 4, false),
      attempt('a', 5, false),
      attempt('a', 6, false),
    ]);

    expect(sut).toEqual([
      {
        // Failed at 1, delivered at 2, failing again from 5.
        endpointId: 'a',
        lastDeliveredAt: at(2),
        lastFailedAt: at(6),
        failingFrom: at(5),
        disableIfFailingSince: at(6 - 100),
      },
      {
        endpointId: 'b',
        lastDeliveredAt: null,
        lastFailedAt: at(4),
        failingFrom: at(3),
        disableIfFailingSince: at(4 - 100),
      },
    ]);
  });

  it('leaves an endpoint whose last attempt delivered without failures to count', () => {
    const [sut] = endpointOutcomes([attempt('a', 1, false), attempt('a', 2, true)]);

    expect(sut).toMatchObject({ lastDeliveredAt: at(2), lastFailedAt: at(1), failingFrom: null });
  });
});
