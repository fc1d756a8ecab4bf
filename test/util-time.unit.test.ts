import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysBetween,
  endOfMonth,
  isValidTimeZone,
  localToUtc,
  todayIn,
  utcToLocal,
  isCalendarDate,
} from '../src/util/time.js';

const iso = (local: string, zone: string) => localToUtc(local, zone).toISOString();

describe('localToUtc (spec 1.2 local date-times)', () => {
  it('converts an ordinary wall time with the zone offset', () => {
    expect(iso('2024-06-01 12:00:00', 'America/Sao_Paulo')).toBe('2024-06-01T15:00:00.000Z');
    expect(iso('2024-01-01 00:00:00', 'Asia/Kolkata')).toBe('2023-12-31T18:30:00.000Z');
    expect(iso('2024-02-29 23:59:59', 'UTC')).toBe('2024-02-29T23:59:59.000Z');
  });

  describe('America/New_York', () => {
    it('reads a wall time in the spring-forward gap with the offset before the change', () => {
      // 2024-03-10 02:00 EST jumps to 03:00 EDT: 02:30 does not exist.
      expect(iso('2024-03-10 02:30:00', 'America/New_York')).toBe('2024-03-10T07:30:00.000Z');
      expect(iso('2024-03-10 01:59:59', 'America/New_York')).toBe('2024-03-10T06:59:59.000Z');
      expect(iso('2024-03-10 03:00:00', 'America/New_York')).toBe('2024-03-10T07:00:00.000Z');
    });

    it('picks the earlier instant of a wall time that happens twice in the fall-back overlap', () => {
      // 2024-11-03 02:00 EDT falls back to 01:00 EST: 01:30 happens at 05:30Z and 06:30Z.
      expect(iso('2024-11-03 01:30:00', 'America/New_York')).toBe('2024-11-03T05:30:00.000Z');
      expect(iso('2024-11-03 00:59:59', 'America/New_York')).toBe('2024-11-03T04:59:59.000Z');
      expect(iso('2024-11-03 02:00:00', 'America/New_York')).toBe('2024-11-03T07:00:00.000Z');
    });
  });

  describe('America/Sao_Paulo while Brazil still had DST', () => {
    it('reads a wall time in the 2018-11-04 midnight gap with the offset before the change', () => {
      // 2018-11-04 00:00 -03 jumped to 01:00 -02: 00:30 does not exist.
      expect(iso('2018-11-03 23:30:00', 'America/Sao_Paulo')).toBe('2018-11-04T02:30:00.000Z');
      expect(iso('2018-11-04 00:30:00', 'America/Sao_Paulo')).toBe('2018-11-04T03:30:00.000Z');
      expect(iso('2018-11-04 01:30:00', 'America/Sao_Paulo')).toBe('2018-11-04T03:30:00.000Z');
    });

    it('picks the earlier instant in the 2019-02-16 overlap', () => {
      // 2019-02-17 00:00 -02 fell back to 2019-02-16 23:00 -03: 23:30 happened twice.
      expect(iso('2019-02-16 23:30:00', 'America/Sao_Paulo')).toBe('2019-02-17T01:30:00.000Z');
      expect(iso('2019-02-17 00:30:00', 'America/Sao_Paulo')).toBe('2019-02-17T03:30:00.000Z');
    });
  });

  it('handles zones east of Greenwich the same way (Europe/Berlin)', () => {
    expect(iso('2024-03-31 02:30:00', 'Europe/Berlin')).toBe('2024-03-31T01:30:00.000Z');
    expect(iso('2024-10-27 02:30:00', 'Europe/Berlin')).toBe('2024-10-27T00:30:00.000Z');
  });

  it('rejects malformed date-times, impossible days and unknown zones', () => {
    expect(() => localToUtc('2024-06-01T12:00:00', 'UTC')).toThrow(RangeError);
    expect(() => localToUtc('2024-02-30 12:00:00', 'UTC')).toThrow(RangeError);
    expect(() => localToUtc('2024-06-01 24:00:00', 'UTC')).toThrow(RangeError);
    expect(() => localToUtc('2024-06-01 12:00:00', 'Mars/Olympus')).toThrow(RangeError);
  });
});

describe('utcToLocal', () => {
  it('formats an instant as the local wall time', () => {
    expect(utcToLocal(new Date('2024-06-01T15:00:00Z'), 'America/Sao_Paulo')).toBe('2024-06-01 12:00:00');
    expect(utcToLocal(new Date('2024-11-03T06:30:00Z'), 'America/New_York')).toBe('2024-11-03 01:30:00');
  });

  it('round-trips every wall time that exists exactly once', () => {
    for (const local of [
      '2024-01-15 08:00:00',
      '2018-11-04 01:00:00',
      '2024-03-10 03:00:00',
      '2023-12-31 23:59:59',
    ]) {
      for (const zone of ['America/Sao_Paulo', 'America/New_York', 'Europe/Berlin']) {
        expect(utcToLocal(localToUtc(local, zone), zone)).toBe(local);
      }
    }
  });
});

describe('todayIn', () => {
  it('gives the calendar day of the zone, not of UTC', () => {
    const now = new Date('2024-06-02T02:00:00Z');
    expect(todayIn('America/Sao_Paulo', now)).toBe('2024-06-01');
    expect(todayIn('UTC', now)).toBe('2024-06-02');
  });
});

describe('isValidTimeZone', () => {
  it('knows IANA zones and rejects the rest', () => {
    expect(isValidTimeZone('America/Sao_Paulo')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});

describe('date arithmetic', () => {
  it('adds days across months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-02-29', 1)).toBe('2024-03-01');
    expect(addDays('2024-01-01', -1)).toBe('2023-12-31');
    expect(addDays('2024-03-09', 2)).toBe('2024-03-11');
  });

  it('counts whole days between dates', () => {
    expect(daysBetween('2024-01-01', '2024-01-31')).toBe(30);
    expect(daysBetween('2024-03-01', '2024-02-01')).toBe(-29);
    expect(daysBetween('2024-05-05', '2024-05-05')).toBe(0);
  });

  it('finds the end of a month', () => {
    expect(endOfMonth('2024-02-10')).toBe('2024-02-29');
    expect(endOfMonth('2023-02-01')).toBe('2023-02-28');
    expect(endOfMonth('2024-12-31')).toBe('2024-12-31');
  });
});

describe('isCalendarDate (spec 1.2 YYYY-MM-DD, a real day)', () => {
  it.each(['2024-02-29', '2000-02-29', '2025-12-31', '0001-01-01', '2025-04-30'])('accepts %s', (d) => {
    expect(isCalendarDate(d)).toBe(true);
  });
  it.each([
    '2023-02-29',
    '1900-02-29',
    '2025-04-31',
    '2025-13-01',
    '2025-00-10',
    '2025-01-00',
    '2025-1-01',
    '2025-01-01 ',
    'abcd-ef-gh',
  ])('rejects %j', (d) => {
    expect(isCalendarDate(d)).toBe(false);
  });
});
