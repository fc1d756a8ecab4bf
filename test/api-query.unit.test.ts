import { describe, expect, it } from 'vitest';
import { buildMultipart, buildQuery, encodeScalar, scopeParams } from '../src/api/query.js';

describe('buildQuery (spec 1.3)', () => {
  it('repeats a list key once per item, never JSON or commas', () => {
    const q = buildQuery({ 'national_registry_list[]': ['01234567890', '52998224725'] });
    expect(q).toBe('national_registry_list%5B%5D=01234567890&national_registry_list%5B%5D=52998224725');
    const parsed = new URLSearchParams(q);
    expect(parsed.getAll('national_registry_list[]')).toEqual(['01234567890', '52998224725']);
    expect(q).not.toContain('%2C');
    expect(q).not.toContain('%5B%22');
  });

  it('sends a one-item list with [] too, and omits empty lists and undefined values', () => {
    expect(buildQuery({ 'email_list[]': ['a@b.c'] })).toBe('email_list%5B%5D=a%40b.c');
    expect(buildQuery({ 'email_list[]': [], national_registry: undefined, x: null })).toBe('');
  });

  it('sends booleans as 1/0 (spec 1.2) and keeps leading zeros', () => {
    expect(buildQuery({ decimal_format: true, other: false, national_registry: '00012345678' })).toBe(
      'decimal_format=1&other=0&national_registry=00012345678',
    );
    expect(encodeScalar(7)).toBe('7');
  });

  it('encodes date-times with their space', () => {
    expect(new URLSearchParams(buildQuery({ begin_date: '2024-01-01 00:00:00' })).get('begin_date')).toBe(
      '2024-01-01 00:00:00',
    );
  });
});

describe('scopeParams (spec 1.4)', () => {
  it('gives include_branches=1 and company_national_registry only when asked', () => {
    expect(scopeParams(undefined)).toEqual({});
    expect(scopeParams({})).toEqual({});
    expect(scopeParams({ includeBranches: false })).toEqual({});
    expect(
      buildQuery(scopeParams({ includeBranches: true, companyNationalRegistry: '00222333000181' })),
    ).toBe('include_branches=1&company_national_registry=00222333000181');
  });
});

describe('buildMultipart (spec 1.3 rule 5)', () => {
  it('repeats national_registry[] and sends one attachment[] file per attachment', async () => {
    const form = buildMultipart(
      { 'national_registry[]': ['111', '222'], paid: true, full_day: false, absence_type_id: 3 },
      [
        { filename: 'a.pdf', mimeType: 'application/pdf', content: Buffer.from('%PDF') },
        { filename: 'b.png', mimeType: 'image/png', content: Buffer.from([1, 2, 3]) },
      ],
    );
    expect(form.getAll('national_registry[]')).toEqual(['111', '222']);
    expect(form.get('paid')).toBe('1');
    expect(form.get('full_day')).toBe('0');
    expect(form.get('absence_type_id')).toBe('3');
    const files = form.getAll('attachment[]') as unknown as File[];
    expect(files.map((f) => [f.name, f.type, f.size])).toEqual([
      ['a.pdf', 'application/pdf', 4],
      ['b.png', 'image/png', 3],
    ]);
    expect(Buffer.from(await files[1]!.arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
  });
});
