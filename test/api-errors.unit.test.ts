import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  API_ERRORS,
  ApiError,
  apiErrorHas,
  errorFromResponse,
  isApiError,
  isPermanent,
} from '../src/api/errors.js';
import { PunchlineError } from '../src/util/errors.js';

const envelope = (code: string, message = 'msg', extra: Record<string, unknown> = {}) => ({
  error: { code, message },
  ...extra,
});

describe('API_ERROR_CODES', () => {
  it('lists every code of spec §7 once, each with its status', () => {
    expect(API_ERROR_CODES).toHaveLength(24);
    expect(new Set(API_ERROR_CODES).size).toBe(API_ERROR_CODES.length);
    expect(API_ERROR_CODES.every((c) => API_ERRORS[c].status >= 400)).toBe(true);
    expect(API_ERROR_CODES.slice(0, 3)).toEqual([
      'invalid_service_token',
      'company_not_found',
      'date_range_exceeded',
    ]);
  });
});

describe('errorFromResponse', () => {
  it.each(API_ERROR_CODES.map((code) => [code, API_ERRORS[code].status] as const))(
    'maps %s (%i) to its own code, keeping code, status and endpoint',
    (code, status) => {
      const err = errorFromResponse('some/endpoint', status, envelope(code, 'server text'));
      expect(isApiError(err, code)).toBe(true);
      expect(err.code).toBe(code);
      expect(err.status).toBe(status);
      expect(err.endpoint).toBe('some/endpoint');
      expect(err.retryable).toBe(false);
      expect(err.message).toBe(`some/endpoint: ${status} ${code}: server text`);
    },
  );

  it('gives the traits of docs/client.md: a 401 pauses, date_range_exceeded and timeouts split, missing items are gone', () => {
    expect(apiErrorHas(errorFromResponse('e', 401, envelope('invalid_service_token')), 'pauses')).toBe(true);
    expect(apiErrorHas(errorFromResponse('e', 401, undefined), 'pauses')).toBe(true);
    expect(apiErrorHas(errorFromResponse('e', 422, envelope('date_range_exceeded')), 'splits')).toBe(true);
    expect(apiErrorHas(new ApiError('timeout', { endpoint: 'e' }), 'splits')).toBe(true);
    expect(apiErrorHas(errorFromResponse('e', 500, undefined), 'splits')).toBe(false);
    for (const code of ['not_found', 'point_not_found', 'audit_photo_not_found'])
      expect(apiErrorHas(errorFromResponse('e', 404, envelope(code)), 'gone')).toBe(true);
    expect(apiErrorHas(errorFromResponse('e', 404, envelope('company_not_found')), 'gone')).toBe(false);
    expect(apiErrorHas(new Error('x'), 'pauses')).toBe(false);
    expect(errorFromResponse('e', 404, envelope('unit_not_found')).message).toBe(
      'e: 404 unit_not_found: msg',
    );
    expect(errorFromResponse('e', 404, { error: { code: 'unit_not_found' } }).message).toBe(
      'e: 404 unit_not_found: a referenced id does not exist or belongs to another company',
    );
  });

  it('carries payload_data_required of a 422 validation_failed (spec 1.1: beside error, not inside)', () => {
    const err = errorFromResponse(
      'POST collaborator',
      422,
      envelope('validation_failed', 'missing', { payload_data_required: ['name', 'email'] }),
    );
    expect(isApiError(err, 'validation_failed')).toBe(true);
    expect(err.payloadDataRequired).toEqual(['name', 'email']);
  });

  it('treats a 403 other than the photo codes as the generic, retryable server error (spec §7)', () => {
    const err = errorFromResponse('collaborator', 403, envelope('forbidden'));
    expect(isApiError(err, 'server_error')).toBe(true);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe('forbidden');
    expect(isApiError(errorFromResponse('collaborator', 403, undefined), 'server_error')).toBe(true);
    expect(errorFromResponse('POST collaborator/photo', 403, envelope('invalid_photo')).retryable).toBe(
      false,
    );
  });

  it('maps unknown codes and bodies that are not envelopes by status', () => {
    const kindOf = (status: number, body: unknown) => errorFromResponse('e', status, body).kind;
    expect(kindOf(500, '<html>oops</html>')).toBe('server_error');
    expect(errorFromResponse('e', 503, envelope('maintenance')).code).toBe('maintenance');
    expect(kindOf(400, undefined)).toBe('bad_request');
    expect(kindOf(401, undefined)).toBe('invalid_service_token');
    expect(errorFromResponse('e', 401, undefined).code).toBe('invalid_service_token');
    expect(kindOf(404, envelope('route_missing'))).toBe('not_found_unknown');
    expect(kindOf(422, envelope('bad_list_param'))).toBe('unprocessable');
    expect(kindOf(422, envelope('x', 'm', { payload_data_required: ['a'] }))).toBe('validation_failed');
    expect(kindOf(409, undefined)).toBe('http_error');
  });

  it('maps a spec code sent with the wrong status by the status', () => {
    const err = errorFromResponse('e', 500, envelope('date_range_exceeded'));
    expect(isApiError(err, 'server_error')).toBe(true);
    expect(isApiError(err, 'date_range_exceeded')).toBe(false);
  });

  it('makes 429 a rate_limited error carrying the wait', () => {
    const err = errorFromResponse('e', 429, undefined, 2500);
    expect(isApiError(err, 'rate_limited') && err.retryAfterMs).toBe(2500);
    expect(err.message).toBe('e: 429 rate_limited: too many requests (retry after 2500 ms)');
    expect(err.retryable).toBe(true);
  });

  it('shortens a huge server message', () => {
    const err = errorFromResponse('e', 500, envelope('x', 'y'.repeat(5000)));
    expect(err.message.length).toBeLessThan(400);
  });
});

describe('isPermanent', () => {
  it('is true for answers retrying cannot fix', () => {
    expect(isPermanent(errorFromResponse('e', 401, undefined))).toBe(true);
    expect(isPermanent(errorFromResponse('e', 404, envelope('point_not_found')))).toBe(true);
    expect(isPermanent(errorFromResponse('e', 422, envelope('date_range_exceeded')))).toBe(true);
    expect(isPermanent(new ApiError('response_invalid', { endpoint: 'e', fieldPath: 'data' }))).toBe(true);
    expect(isPermanent(new ApiError('response_too_large', { endpoint: 'e', limitBytes: 1 }))).toBe(true);
  });

  it('is false for transient failures and for anything that is not an ApiError', () => {
    expect(isPermanent(errorFromResponse('e', 500, undefined))).toBe(false);
    expect(isPermanent(errorFromResponse('e', 403, undefined))).toBe(false);
    expect(isPermanent(errorFromResponse('e', 429, undefined, 1))).toBe(false);
    expect(isPermanent(new ApiError('timeout', { endpoint: 'e' }))).toBe(false);
    expect(isPermanent(new ApiError('network', { endpoint: 'e', mayHaveReachedServer: true }))).toBe(false);
    expect(isPermanent(new Error('x'))).toBe(false);
    expect(isPermanent(undefined)).toBe(false);
  });
});

describe('ApiError', () => {
  it("has a literal name, its code and punchline's error base", () => {
    const err = new ApiError('journey_not_found', { endpoint: 'POST collaborator', status: 404 });
    expect(err).toBeInstanceOf(PunchlineError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ApiError');
    expect(err.code).toBe('journey_not_found');
    expect(new ApiError('timeout', { endpoint: 'unit' }).message).toBe(
      'unit: timeout: the request timed out',
    );
    expect(
      new ApiError('response_invalid', {
        endpoint: 'unit',
        fieldPath: 'data[0].id',
        message: 'data[0].id: bad',
      }).message,
    ).toBe('unit: data[0].id: bad');
    const plain = new ApiError('response_invalid', { endpoint: 'unit', fieldPath: 'data' });
    expect([plain.message, plain.problems]).toEqual(['unit: data: the response breaks the spec', []]);
  });

  it('is told apart by code with isApiError, which is false for other errors', () => {
    const err = new ApiError('network', { endpoint: 'e', mayHaveReachedServer: false });
    expect(isApiError(err, 'network') && err.mayHaveReachedServer).toBe(false);
    expect(isApiError(err, 'timeout', 'network')).toBe(true);
    expect(isApiError(err, 'timeout')).toBe(false);
    expect(isApiError(err)).toBe(true);
    expect(isApiError(new PunchlineError('network', 'x'))).toBe(false);
  });
});

describe('docs/client.md', () => {
  it('lists every row of API_ERRORS with its status, spec section, traits and message', () => {
    const traits = {
      retryable: 'retried',
      pauses: 'pauses the connection',
      splits: 'splits the window',
      gone: 'item gone',
    } as const;
    const expected = Object.entries(API_ERRORS).map(([code, row]: [string, Record<string, unknown>]) => {
      const message =
        typeof row.message === 'function'
          ? (row.message as (e: object) => string)({ retryAfterMs: 1000, limitBytes: 1048576 })
          : row.message;
      const has = Object.entries(traits)
        .filter(([t]) => row[t] === true)
        .map(([, words]) => words);
      return `| \`${code}\` | ${row.status ?? '—'} | ${row.spec ?? '—'} | ${has.join(', ')} | ${message} |`;
    });
    const doc = readFileSync(fileURLToPath(new URL('../docs/client.md', import.meta.url)), 'utf8');
    const documented = doc.split('\n').filter((l) => /^\| `[a-z_]+` \| (\d{3}|—) \|/.test(l));
    expect(documented, 'paste these rows into the table of docs/client.md "Errors"').toEqual(expected);
  });
});
