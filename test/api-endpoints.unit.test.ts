import { describe, expect, it } from 'vitest';
import {
  API_PREFIX,
  ENDPOINTS,
  ENDPOINT_NAMES,
  READ_ENDPOINT_NAMES,
  WRITE_ENDPOINT_NAMES,
  type StreamEndpoint,
} from '../src/api/endpoints.js';
import type { ReadDeclaration } from '../src/resources/declaration.js';
import { CATALOG } from '../src/resources/index.js';

/** The reads the resource declarations describe inline, outside the table. */
const INLINE_ENDPOINTS = Object.values(CATALOG)
  .flatMap((d) => (d.read === 'group' ? [] : (d.reads as readonly ReadDeclaration[]).map((r) => r.endpoint)))
  .filter((e): e is StreamEndpoint => typeof e !== 'string');
const INLINE = INLINE_ENDPOINTS.map((e) => e.name);

describe('endpoint table (spec §4)', () => {
  it('has 31 endpoints: 22 reads and 9 writes', () => {
    expect([...READ_ENDPOINT_NAMES, ...INLINE]).toHaveLength(22);
    expect(WRITE_ENDPOINT_NAMES).toHaveLength(9);
    expect([...ENDPOINT_NAMES, ...INLINE]).toHaveLength(31);
    expect(Object.keys(ENDPOINTS).sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  it('serves reads with GET on their own path, writes with POST/PUT', () => {
    for (const name of READ_ENDPOINT_NAMES) {
      expect(ENDPOINTS[name].method).toBe('GET');
      expect(ENDPOINTS[name].path).toBe(`${API_PREFIX}/${name}`);
      expect(ENDPOINTS[name].body).toBe('query');
      expect(ENDPOINTS[name].successStatus).toBe(200);
    }
    for (const e of INLINE_ENDPOINTS) expect(e.path).toBe(`${API_PREFIX}/${e.name}`);
    for (const name of WRITE_ENDPOINT_NAMES) {
      const [method, path] = name.split(' ');
      expect(ENDPOINTS[name].method).toBe(method);
      expect(ENDPOINTS[name].path).toBe(`${API_PREFIX}/${path}`);
      expect(ENDPOINTS[name].meta).toBeNull();
    }
  });

  it('has a unique method + path per endpoint', () => {
    const routes = [
      ...ENDPOINT_NAMES.map((n) => `${ENDPOINTS[n].method} ${ENDPOINTS[n].path}`),
      ...INLINE_ENDPOINTS.map((e) => `GET ${e.path}`),
    ];
    expect(new Set(routes).size).toBe(31);
  });

  it('knows which endpoints return meta (spec 1.3.1: period endpoints always do)', () => {
    const withMeta = [
      ...ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].meta !== null),
      ...INLINE_ENDPOINTS.filter((e) => e.meta !== null).map((e) => e.name),
    ].sort();
    expect(withMeta).toEqual(
      [
        'absence/attachment',
        'absence/getFromPeriod',
        'adjustment',
        'collaborator/totalHours',
        'inconsistency',
        'overtime',
        'point/audit',
        'point/getFromPeriod',
        'tardiness',
      ].sort(),
    );
  });

  it('names list parameters with [] (spec 1.3) and sends absences as multipart', () => {
    expect(ENDPOINTS['point/getFromPeriod'].params).toContain('national_registry_list[]');
    expect(ENDPOINTS['collaborator/totalHours'].params).toContain('email_list[]');
    expect(ENDPOINTS.tardiness.params).not.toContain('email_list[]');
    expect(ENDPOINTS['POST absence'].body).toBe('multipart');
    expect(ENDPOINTS['POST absence'].required).toContain('national_registry[]');
    expect(ENDPOINTS['POST absence'].params).toContain('attachment[]');
    for (const n of WRITE_ENDPOINT_NAMES) if (n !== 'POST absence') expect(ENDPOINTS[n].body).toBe('json');
  });

  it('answers 201 for creations and 200 for photo and dismissal (spec 4.2)', () => {
    const s = Object.fromEntries(WRITE_ENDPOINT_NAMES.map((n) => [n, ENDPOINTS[n].successStatus]));
    expect(s).toEqual({
      'POST collaborator': 201,
      'POST collaborator/photo': 200,
      'PUT collaborator/dismissal': 200,
      'POST point': 201,
      'POST absence': 201,
      'POST department': 201,
      'POST occupation': 201,
      'POST fired-type': 201,
      'POST cost-center': 201,
    });
  });

  it('validates company as one object, or an array with include_branches=1', () => {
    const one = {
      name: 'A',
      trading_name: 'A',
      national_registry: '11222333000181',
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
    expect(ENDPOINTS.company.data.safeParse(one).success).toBe(true);
    expect(ENDPOINTS.company.data.safeParse([one]).success).toBe(false);
    expect(ENDPOINTS.company.dataWithBranches.safeParse([one]).success).toBe(true);
  });
});
