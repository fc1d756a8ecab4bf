import { describe, expect, it } from 'vitest';
import { rejectionSpan } from '../src/load/load-records.js';

describe('the days a rejected record stands for', () => {
  const window = { from: '2024-09-01', to: '2024-09-07' };

  it('are the days it names, a date-time by its day, even when its time is broken', () => {
    expect(rejectionSpan({ point_id: 1, datetime: '2024-09-05 25:00:00' }, window)).toEqual({
      from: '2024-09-05',
      to: '2024-09-05',
    });
    expect(
      rejectionSpan({ date: '2024-09-03', points: [{ datetime: '2024-09-04 01:00:00' }] }, window),
    ).toEqual({ from: '2024-09-03', to: '2024-09-04' });
  });

  it('stay within the window the record was read in (an absence reaching past it)', () => {
    expect(
      rejectionSpan({ begin_date: '2024-08-28 00:00:00', end_date: '2024-09-02 23:59:59' }, window),
    ).toEqual({ from: '2024-09-01', to: '2024-09-02' });
  });

  it('are the whole window when it names no day, or none that is a calendar day', () => {
    expect(rejectionSpan({ national_registry: '1', accumulated_balance: 'ten' }, window)).toEqual(window);
    expect(rejectionSpan({ date: '2024-09-31' }, window)).toEqual(window);
    expect(rejectionSpan({ description: 'x' }, { from: null, to: null })).toEqual({ from: null, to: null });
  });
});
