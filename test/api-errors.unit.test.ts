import { describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  ApiError,
  AuthError,
  BadRequestError,
  CompanyNotFoundError,
  DateRangeExceededError,
  ERROR_CODE_TABLE,
  HttpError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ReferenceNotFoundError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  ValidationFailedError,
  errorFromResponse,
  isPermanent,
} from '../src/api/errors.js';

const envelope = (code: string, message = 'msg', extra: Record<string, unknown> = {}) => ({
  error: { code, message },
  ...extra,
});

describe('API_ERROR_CODES', () => {
  it('lists every code of spec §7 once, each with its status', () => {
    expect(API_ERROR_CODES).toHaveLength(24);
    expect(new Set(API_ERROR_CODES).size).toBe(API_ERROR_CODES.length);
    expect(Object.keys(ERROR_CODE_TABLE).sort()).toEqual([...API_ERROR_CODES].sort());
  });
});

describe('errorFromResponse', () => {
  it.each(API_ERROR_CODES.map((code) => [code, ERROR_CODE_TABLE[code].status] as const))(
    'maps %s (%i) to its own class, keeping code, status and endpoint',
    (code, status) => {
      const err = errorFromResponse('some/endpoint', status, envelope(code, 'server text'));
      expect(err).toBeInstanceOf(ERROR_CODE_TABLE[code].error);
      expect(err.code).toBe(code);
      expect(err.status).toBe(status);
      expect(err.endpoint).toBe('some/endpoint');
      expect(err.retryable).toBe(false);
      expect(err.message).toBe(`some/endpoint: ${status} ${code}: server text`);
    },
  );

  it('gives the notable classes of docs/client.md', () => {
    expect(errorFromResponse('e', 401, envelope('invalid_service_token'))).toBeInstanceOf(AuthError);
    expect(errorFromResponse('e', 422, envelope('date_range_exceeded'))).toBeInstanceOf(DateRangeExceededError);
    expect(errorFromResponse('e', 404, envelope('company_not_found'))).toBeInstanceOf(CompanyNotFoundError);
    expect(errorFromResponse('e', 404, envelope('unit_not_found')).name).toBe('ReferenceNotFoundError');
  });

  it('carries payload_data_required of a 422 validation_failed (spec 1.1: beside error, not inside)', () => {
    const err = errorFromResponse('POST collaborator', 422, envelope('validation_failed', 'missing', { payload_data_required: ['name', 'email'] }));
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect(err.payloadDataRequired).toEqual(['name', 'email']);
  });

  it('treats a 403 other than the photo codes as the generic, retryable server error (spec §7)', () => {
    const err = errorFromResponse('collaborator', 403, envelope('forbidden'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe('forbidden');
    expect(errorFromResponse('collaborator', 403, undefined)).toBeInstanceOf(ServerError);
    expect(errorFromResponse('POST collaborator/photo', 403, envelope('invalid_photo')).retryable).toBe(false);
  });

  it('maps unknown codes and bodies that are not envelopes by status', () => {
    expect(errorFromResponse('e', 500, '<html>oops</html>')).toBeInstanceOf(ServerError);
    expect(errorFromResponse('e', 503, envelope('maintenance')).code).toBe('maintenance');
    expect(errorFromResponse('e', 400, undefined)).toBeInstanceOf(BadRequestError);
    expect(errorFromResponse('e', 401, undefined)).toBeInstanceOf(AuthError);
    expect(errorFromResponse('e', 404, envelope('route_missing'))).toBeInstanceOf(NotFoundError);
    expect(errorFromResponse('e', 422, envelope('bad_list_param'))).toBeInstanceOf(UnprocessableError);
    expect(errorFromResponse('e', 422, envelope('x', 'm', { payload_data_required: ['a'] }))).toBeInstanceOf(ValidationFailedError);
    expect(errorFromResponse('e', 409, undefined)).toBeInstanceOf(HttpError);
  });

  it('maps a spec code sent with the wrong status by the status', () => {
    const err = errorFromResponse('e', 500, envelope('date_range_exceeded'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).not.toBeInstanceOf(DateRangeExceededError);
  });

  it('makes 429 a RateLimitedError carrying the wait', () => {
    const err = errorFromResponse('e', 429, undefined, 2500);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(2500);
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
    expect(isPermanent(new ResponseValidationError({ endpoint: 'e', fieldPath: 'data' }))).toBe(true);
    expect(isPermanent(new ResponseTooLargeError({ endpoint: 'e', limitBytes: 1 }))).toBe(true);
  });

  it('is false for transient failures and for anything that is not an ApiError', () => {
    expect(isPermanent(errorFromResponse('e', 500, undefined))).toBe(false);
    expect(isPermanent(errorFromResponse('e', 403, undefined))).toBe(false);
    expect(isPermanent(errorFromResponse('e', 429, undefined, 1))).toBe(false);
    expect(isPermanent(new TimeoutError({ endpoint: 'e' }))).toBe(false);
    expect(isPermanent(new NetworkError({ endpoint: 'e', mayHaveReachedServer: true }))).toBe(false);
    expect(isPermanent(new Error('x'))).toBe(false);
    expect(isPermanent(undefined)).toBe(false);
  });
});

describe('error classes', () => {
  it('have literal names, codes and ApiError as base', () => {
    const err = new ReferenceNotFoundError({ endpoint: 'POST collaborator', status: 404, code: 'journey_not_found' });
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ReferenceNotFoundError');
    expect(err.code).toBe('journey_not_found');
    expect(new TimeoutError({ endpoint: 'unit' }).message).toBe('unit: timeout: the request timed out');
    expect(new ResponseValidationError({ endpoint: 'unit', fieldPath: 'data[0].id', message: 'data[0].id: bad' }).message).toBe(
      'unit: data[0].id: bad',
    );
  });
});
