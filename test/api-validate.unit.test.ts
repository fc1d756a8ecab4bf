import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../src/api/endpoints.js';
import { ApiError } from '../src/api/errors.js';
import { formatPath, validateEnvelope } from '../src/api/validate.js';

const company = { name: 'ACME', trading_name: 'Acme', national_registry: '11222333000181' };
const collaborator = {
  national_registry: '52998224725',
  registration_number: '7',
  email: 'a@acme.test',
  name: 'Ana',
  occupation: 'Dev',
  department: 'IT',
  team: null,
  business_unit: 'HQ',
  admission_date: '2020-01-02',
  pis: '123',
  company,
};
const point = (over: Record<string, unknown> = {}) => ({
  point_id: 1,
  datetime: '2024-01-02 08:00:00',
  hour: '08:00',
  method: 'face',
  origin: 'App Mobile',
  is_adjusted: false,
  adjustment_reason: null,
  adjusted_by: null,
  accuracy_meters: 5,
  geolocation: { lat: -23.5, lng: -46.6 },
  address: 'Rua A',
  has_audit_photo: false,
  ...over,
});
const day = (points: unknown[]) => ({ date: '2024-01-02', shift: '08-17', worked_time: '08:00:00', points });
const meta = { begin_date: '2024-01-01', end_date: '2024-01-31' };

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toMatchObject({ kind: 'response_invalid' });
    return err as ApiError;
  }
  throw new Error('expected a response_invalid ApiError');
}

describe('validateEnvelope', () => {
  it('returns data and meta of a valid response', () => {
    const body = { data: [{ ...collaborator, days: [day([point()])] }], meta };
    const env = validateEnvelope('point/getFromPeriod', ENDPOINTS['point/getFromPeriod'], body);
    expect(env.meta).toEqual(meta);
    expect(env.data).toEqual(body.data);
  });

  it('names the endpoint and the exact field path of a broken date-time', () => {
    const items = [0, 1, 2, 3].map(() => ({
      ...collaborator,
      days: [day([point(), point({ datetime: '2024-01-02T08:00:00' })])],
    }));
    items[0] = { ...collaborator, days: [day([point()])] };
    const err = failure(() =>
      validateEnvelope('point/getFromPeriod', ENDPOINTS['point/getFromPeriod'], { data: items, meta }),
    );
    expect(err.message).toMatch(
      /^point\/getFromPeriod: data\[1\]\.days\[0\]\.points\[1\]\.datetime: expected a date-time YYYY-MM-DD HH:MM:SS \(spec 1\.2\) \(and 2 more\)$/,
    );
    expect(err.fieldPath).toBe('data[1].days[0].points[1].datetime');
    expect(err.problems).toHaveLength(3);
    expect(err.endpoint).toBe('point/getFromPeriod');
  });

  it('explains a failed duration-or-number union by what was expected', () => {
    const bad = (worked_time: unknown) => ({
      data: [{ ...collaborator, days: [{ ...day([]), worked_time }] }],
      meta,
    });
    const text = failure(() =>
      validateEnvelope('point/getFromPeriod', ENDPOINTS['point/getFromPeriod'], bad('8h')),
    );
    expect(text.fieldPath).toBe('data[0].days[0].worked_time');
    expect(text.message).toContain('expected a duration [-]HH:MM:SS');
    const wrongType = failure(() =>
      validateEnvelope('point/getFromPeriod', ENDPOINTS['point/getFromPeriod'], bad(true)),
    );
    expect(wrongType.fieldPath).toBe('data[0].days[0].worked_time');
    expect(wrongType.message).toMatch(/expected string.* or .*expected number/);
  });

  it('rejects a missing field, a missing data, a missing meta and a non-object body', () => {
    // e-mail may be missing (real records lack it); the company block may not.
    const { company: _omit, ...noCompany } = collaborator;
    expect(
      failure(() =>
        validateEnvelope('collaborator', ENDPOINTS.collaborator, { data: [collaborator, noCompany] }),
      ).fieldPath,
    ).toBe('data[1].company');
    expect(failure(() => validateEnvelope('unit', ENDPOINTS.unit, { units: [] })).message).toBe(
      'unit: data: missing from the success envelope (spec 1.1)',
    );
    expect(failure(() => validateEnvelope('tardiness', ENDPOINTS.tardiness, { data: [] })).fieldPath).toBe(
      'meta',
    );
    expect(failure(() => validateEnvelope('unit', ENDPOINTS.unit, [])).fieldPath).toBe('(body)');
  });

  it('accepts an empty list with meta (spec 1.3.1)', () => {
    expect(validateEnvelope('tardiness', ENDPOINTS.tardiness, { data: [], meta }).data).toEqual([]);
  });

  it('checks company data as an array only with include_branches', () => {
    const full = {
      ...company,
      cei: null,
      caepf: null,
      cno: null,
      address: '',
      address_number: '',
      complement: '',
      neighborhood: '',
      zip_code: '',
      phone: '',
      email: '',
    };
    expect(
      validateEnvelope('company', ENDPOINTS.company, { data: [full] }, { includeBranches: true }).data,
    ).toEqual([full]);
    expect(failure(() => validateEnvelope('company', ENDPOINTS.company, { data: [full] })).fieldPath).toBe(
      'data',
    );
  });
});

describe('formatPath', () => {
  it('writes indexes in brackets and odd keys quoted', () => {
    expect(formatPath('data', [3, 'days', 0, 'points', 1, 'datetime'])).toBe(
      'data[3].days[0].points[1].datetime',
    );
    expect(formatPath('meta', ['a-b'])).toBe('meta["a-b"]');
  });
});
