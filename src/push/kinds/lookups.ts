/**
 * spec 4.2: the four lookup creations, by one factory: a row names the record; it exists when the
 * API's list (spec 2.4) has one with the same description or name (without case and surrounding
 * blanks); a creation refreshes the company's lookups.
 */
import type { ApiClient, CallOptions } from '../../api/client.js';
import type { WriteEndpointName } from '../../api/endpoints.js';
import { RowInvalid, valuesAsBody, type ColumnSpec, type Existing, type WriteKind } from '../kind.js';
import type { LookupTable } from '../../resources/lookups.js';
import { REFERENCE_SOURCES, byLabel, normalizeLabel } from '../references.js';

/** Body of a lookup creation: the label field, plus `number_cbo` for occupations. */
export type LookupBody = Readonly<Record<string, string>>;

interface LookupKindSpec {
  readonly endpoint: WriteEndpointName;
  readonly summary: string;
  /** spec 4.2: `description` or `name`. */
  readonly field: 'description' | 'name';
  /** The list it is added to. */
  readonly table: LookupTable;
  /** Optional columns besides the label. */
  readonly extra?: Readonly<Record<string, ColumnSpec>>;
  readonly create: (api: ApiClient, body: LookupBody, call: CallOptions) => Promise<{ id: number }>;
}

function lookupKind(name: string, spec: LookupKindSpec): WriteKind<LookupBody> {
  const { field } = spec;
  return {
    name,
    endpoint: spec.endpoint,
    summary: spec.summary,
    columns: {
      [field]: { type: 'text', required: true, doc: `the ${field} of the new record` },
      ...spec.extra,
    },
    references: [],
    body(values) {
      if (normalizeLabel(values[field] as string) === '') throw new RowInvalid(`${field}: is empty`);
      return valuesAsBody(values);
    },
    key: (body) => normalizeLabel(body[field]!),
    label: (body) => body[field]!,
    async check(ctx, candidates) {
      const listed = byLabel(await REFERENCE_SOURCES[spec.table].list(ctx.api, ctx.call));
      const out = new Map<number, Existing>();
      for (const c of candidates) {
        const hit = listed.get(c.key)?.[0];
        if (hit)
          out.set(c.index, {
            exists: true,
            id: String(hit.id),
            note: `already listed as ${JSON.stringify(hit.label)} (id ${hit.id})`,
          });
      }
      return out;
    },
    async write(api, body, call) {
      return { id: String((await spec.create(api, body, call)).id) };
    },
    touches: () => [{ resource: 'lookups' }],
  };
}

/** spec 4.2: `push departments`, `occupations`, `fired-types` and `cost-centers`, by name. */
export const LOOKUP_KINDS = {
  departments: lookupKind('departments', {
    endpoint: 'POST department',
    summary: 'creates departments (active)',
    field: 'description',
    table: 'departments',
    create: (api, body, call) => api.createDepartment({ description: body.description! }, call),
  }),
  occupations: lookupKind('occupations', {
    endpoint: 'POST occupation',
    summary: 'creates occupations (active), with their CBO code when given',
    field: 'description',
    table: 'occupations',
    extra: { number_cbo: { type: 'text', doc: 'occupation classification code (CBO), optional' } },
    create: (api, body, call) =>
      api.createOccupation(
        { description: body.description!, ...(body.number_cbo ? { number_cbo: body.number_cbo } : {}) },
        call,
      ),
  }),
  'fired-types': lookupKind('fired-types', {
    endpoint: 'POST fired-type',
    summary: 'creates dismissal types',
    field: 'name',
    table: 'dismissal_types',
    create: (api, body, call) => api.createFiredType({ name: body.name! }, call),
  }),
  'cost-centers': lookupKind('cost-centers', {
    endpoint: 'POST cost-center',
    summary: 'creates cost centers (always active)',
    field: 'name',
    table: 'cost_centers',
    create: (api, body, call) => api.createCostCenter({ name: body.name! }, call),
  }),
};
