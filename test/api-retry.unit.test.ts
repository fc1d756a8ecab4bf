import { describe, expect, it } from 'vitest';
import { ApiError, errorFromResponse } from '../src/api/errors.js';
import { backoffDelay, parseRetryAfter, retryReason } from '../src/api/retry.js';

describe('backoffDelay (exponential, full jitter)', () => {
  const opts = { baseMs: 500, maxMs: 30_000 };
  it('doubles the cap per retry up to the maximum', () => {
    const justBelowOne = () => 0.999999;
    expect(backoffDelay(1, opts, justBelowOne)).toBe(499);
    expect(backoffDelay(2, opts, justBelowOne)).toBe(999);
    expect(backoffDelay(3, opts, justBelowOne)).toBe(1999);
    expect(backoffDelay(10, opts, justBelowOne)).toBe(29_999);
  });
  it('draws uniformly below the cap (full jitter)', () => {
    expect(backoffDelay(3, opts, () => 0)).toBe(0);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(1000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['7'], now)).toBe(7000);
  });
  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('retryReason', () => {
  const e = 'x';
  const refused = new ApiError('network', { endpoint: e, mayHaveReachedServer: false });
  const reset = new ApiError('network', { endpoint: e, mayHaveReachedServer: true });
  const timeout = new ApiError('timeout', { endpoint: e });
  const s500 = errorFromResponse(e, 500, undefined);
  const s403 = errorFromResponse(e, 403, undefined);
  const s429 = new ApiError('rate_limited', { endpoint: e, status: 429, retryAfterMs: 1 });

  it('retries every transient failure of a GET', () => {
    expect(retryReason(s500, 'GET')).toBe('server_error');
    expect(retryReason(s403, 'GET')).toBe('forbidden');
    expect(retryReason(timeout, 'GET')).toBe('timeout');
    expect(retryReason(reset, 'GET')).toBe('network');
    expect(retryReason(refused, 'GET')).toBe('network');
    expect(retryReason(s429, 'GET')).toBe('rate_limited');
  });

  it('retries a write only when it certainly did not take effect', () => {
    for (const m of ['POST', 'PUT'] as const) {
      expect(retryReason(refused, m)).toBe('network');
      expect(retryReason(s429, m)).toBe('rate_limited');
      expect(retryReason(reset, m)).toBeNull();
      expect(retryReason(timeout, m)).toBeNull();
      expect(retryReason(s500, m)).toBeNull();
      expect(retryReason(s403, m)).toBeNull();
    }
  });

  it('never retries 401, other 4xx, or foreign errors', () => {
    expect(
      retryReason(new ApiError('invalid_service_token', { endpoint: e, status: 401 }), 'GET'),
    ).toBeNull();
    expect(retryReason(errorFromResponse(e, 404, undefined), 'GET')).toBeNull();
    expect(retryReason(errorFromResponse(e, 422, undefined), 'GET')).toBeNull();
    expect(
      retryReason(errorFromResponse(e, 403, { error: { code: 'invalid_photo', message: '' } }), 'GET'),
    ).toBeNull();
    expect(retryReason(new TypeError('bug'), 'GET')).toBeNull();
    expect(s500).toMatchObject({ kind: 'server_error' });
  });
});
