import { describe, expect, it } from 'vitest';
import {
  durationToSeconds,
  durationValueToSeconds,
  hourMinuteToSeconds,
  secondsToDuration,
  secondsToHourMinute,
} from '../src/util/duration.js';

describe('durationToSeconds (spec 1.2 signed HH:MM:SS)', () => {
  it.each([
    ['00:00:00', 0],
    ['08:30:00', 30_600],
    ['00:00:59', 59],
    ['23:59:59', 86_399],
    ['-01:15:30', -4_530],
    ['100:00:01', 360_001],
    ['1234:05:06', 1234 * 3600 + 5 * 60 + 6],
    ['-250:30:00', -(250 * 3600 + 1800)],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(durationToSeconds(text)).toBe(seconds);
  });

  it('reads -00:00:00 as plain zero, not -0', () => {
    expect(Object.is(durationToSeconds('-00:00:00'), 0)).toBe(true);
  });

  it.each([
    '8:30:00',
    '08:60:00',
    '08:30:60',
    '08:30',
    '+08:30:00',
    '',
    ' 08:30:00',
    '08:30:00.5',
    '--01:00:00',
  ])('rejects %j', (text) => {
    expect(() => durationToSeconds(text)).toThrow(RangeError);
  });
});

describe('secondsToDuration', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [30_600, '08:30:00'],
    [-4_530, '-01:15:30'],
    [360_001, '100:00:01'],
    [-(250 * 3600 + 1800), '-250:30:00'],
  ])('formats %i as %s', (seconds, text) => {
    expect(secondsToDuration(seconds)).toBe(text);
  });

  it('round-trips every shape, hours past 99 included', () => {
    for (const s of [0, 1, 61, 3599, 3600, 86_399, 99 * 3600 + 3599, 100 * 3600, 12_345_678]) {
      expect(durationToSeconds(secondsToDuration(s))).toBe(s);
      expect(durationToSeconds(secondsToDuration(-s))).toBe(s === 0 ? 0 : -s);
    }
  });

  it('rejects fractions of a second', () => {
    expect(() => secondsToDuration(1.5)).toThrow(RangeError);
  });
});

describe('hourMinuteToSeconds (spec 2.8 HH:MM)', () => {
  it.each([
    ['00:00', 0],
    ['08:05', 29_100],
    ['23:59', 86_340],
    ['120:30', 120 * 3600 + 1800],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(hourMinuteToSeconds(text)).toBe(seconds);
  });

  it.each(['8:05', '08:60', '08:05:00', '-00:10', ''])('rejects %j', (text) => {
    expect(() => hourMinuteToSeconds(text)).toThrow(RangeError);
  });

  it('round-trips with secondsToHourMinute', () => {
    for (const s of [0, 60, 29_100, 86_340, 120 * 3600 + 1800])
      expect(hourMinuteToSeconds(secondsToHourMinute(s))).toBe(s);
    expect(secondsToHourMinute(29_159)).toBe('08:05');
    expect(() => secondsToHourMinute(-60)).toThrow(RangeError);
  });
});

describe('durationValueToSeconds (decimal_format, spec 1.2)', () => {
  it('reads decimal hours and strings alike', () => {
    expect(durationValueToSeconds(8.5)).toBe(30_600);
    expect(durationValueToSeconds(0)).toBe(0);
    expect(durationValueToSeconds(-1.25)).toBe(-4_500);
    expect(durationValueToSeconds(1 / 3)).toBe(1_200);
    expect(durationValueToSeconds('08:30:00')).toBe(30_600);
  });
});
