/**
 * The endpoints of Customer API v2 (spec §4) that punchline calls by name, as data (method,
 * path, parameters, zod shapes of `data` and `meta`) for the client, the conformance suite and
 * the docs. With the GET endpoint a declaration describes inline ({@link StreamEndpoint}:
 * `inconsistency`, src/resources/inconsistencies.ts), spec 4.1's 22 reads and 4.2's 9 writes.
 * A read is named by its path after `/customer/v2/`, a write by method and path (`POST point`),
 * since some paths serve both.
 */
import { z } from 'zod';
import {
  absence,
  absenceAttachment,
  absenceType,
  auditPhoto,
  collaboratorAdjustments,
  collaboratorBlock,
  collaboratorPoints,
  collaboratorTardiness,
  collaboratorTotalHours,
  company,
  createdAbsence,
  createdId,
  createdPoint,
  dateMeta,
  describedLookup,
  economicGroupEntry,
  namedLookup,
  overtimeBalance,
  periodMeta,
  successResult,
} from './schemas.js';

/** Path prefix of every endpoint (spec §9 rule 1). */
export const API_PREFIX = '/customer/v2';

/** HTTP methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** How a request carries its parameters. */
export type BodyKind = 'query' | 'json' | 'multipart';

/** One row of the endpoint table. */
export interface EndpointDef {
  readonly method: HttpMethod;
  /** Full path, starting with {@link API_PREFIX}. */
  readonly path: string;
  /** Where the parameters go: query string (GET), JSON body or multipart form. */
  readonly body: BodyKind;
  /** Parameter names the spec lists, `[]` included for lists (spec 1.3); scope params not repeated here. */
  readonly params: readonly string[];
  /** Parameters the spec marks required. */
  readonly required: readonly string[];
  /** Shape of the success envelope's `data`. */
  readonly data: z.ZodType;
  /** Shape of `data` when `include_branches=1` changes it (only `company`, spec 4.1). */
  readonly dataWithBranches?: z.ZodType;
  /** Shape of `meta` when the spec says the endpoint returns one; null otherwise. */
  readonly meta: z.ZodType | null;
  /** HTTP status of success (spec 4.2: 201 for creations, 200 otherwise). */
  readonly successStatus: 200 | 201;
}

const PERIOD = ['begin_date', 'end_date'] as const;
const PEOPLE_FILTERS = ['national_registry_list[]', 'email_list[]', 'decimal_format'] as const;
/** spec 4.2: what `POST collaborator` requires. */
const NEW_COLLABORATOR = [
  'name',
  'national_registry',
  'email',
  'birth_date',
  'begin_date',
  'journey_id',
  'cost_center_id',
  'department_id',
  'unit_id',
  'collaborator_settings_id',
  'point_rule_id',
] as const;
/** spec 4.2: what `POST absence` requires. */
const NEW_ABSENCE = [
  'national_registry[]',
  'absence_type_id',
  'description',
  'details',
  'begin_date',
  'end_date',
  'paid',
  'full_day',
  'sum_on_work_time',
  'sum_total_on_work_time',
] as const;

/** A row of a read; its parameters are the required ones, then the optional ones. */
function read<D extends z.ZodType, M extends z.ZodType | null = null>(
  name: string,
  data: D,
  meta: M = null as M,
  required: readonly string[] = [],
  optional: readonly string[] = [],
) {
  const params = [...required, ...optional];
  return {
    method: 'GET',
    path: `${API_PREFIX}/${name}`,
    body: 'query',
    params,
    required,
    data,
    meta,
    successStatus: 200,
  } as const;
}

/** A row of a read of a period: a list, and the period as `meta`. */
function periodRead<E extends z.ZodType>(name: string, element: E, optional: readonly string[] = []) {
  return read(name, z.array(element), periodMeta, PERIOD, optional);
}

/** A row of a write; its parameters are the required ones, then the optional ones. */
function write<D extends z.ZodType>(
  method: 'POST' | 'PUT',
  path: string,
  data: D,
  successStatus: 200 | 201,
  required: readonly string[],
  optional: readonly string[] = [],
  body: BodyKind = 'json',
) {
  const params = [...required, ...optional];
  return {
    method,
    path: `${API_PREFIX}/${path}`,
    body,
    params,
    required,
    data,
    meta: null,
    successStatus,
  } as const;
}

/** Lookup lists of spec 2.4 with `description`. */
const described = z.array(describedLookup);
/** Lookup lists of spec 2.4 with `name`. */
const named = z.array(namedLookup);

/** The endpoint table (spec §4). */
export const ENDPOINTS = {
  // spec 4.1: reads
  collaborator: read('collaborator', z.array(collaboratorBlock)),
  'collaborator/totalHours': periodRead('collaborator/totalHours', collaboratorTotalHours, PEOPLE_FILTERS),
  'point/getFromPeriod': periodRead('point/getFromPeriod', collaboratorPoints, PEOPLE_FILTERS),
  // spec 2.13: `meta` carries `point_id`.
  'point/audit': read('point/audit', auditPhoto, z.object({ point_id: z.number().int() }), ['point_id']),
  tardiness: periodRead('tardiness', collaboratorTardiness, ['national_registry']),
  adjustment: periodRead('adjustment', collaboratorAdjustments, ['national_registry']),
  overtime: read('overtime', z.array(overtimeBalance), dateMeta, ['date'], ['national_registry']),
  'absence/types': read('absence/types', z.array(absenceType)),
  'absence/getFromPeriod': periodRead('absence/getFromPeriod', absence),
  'absence/attachment': read(
    'absence/attachment',
    z.array(absenceAttachment),
    z.object({ absence_id: z.number().int() }),
    ['absence_id'],
  ),
  // spec 4.1: one object, or an array of companies with include_branches=1.
  company: { ...read('company', company), dataWithBranches: z.array(company) },
  'economic-group': read('economic-group', z.array(economicGroupEntry)),
  department: read('department', described),
  occupation: read('occupation', described),
  'fired-type': read('fired-type', named),
  'cost-center': read('cost-center', named),
  'collaborator-settings': read('collaborator-settings', described),
  'point-rule': read('point-rule', described),
  journey: read('journey', described),
  barrier: read('barrier', named),
  unit: read('unit', named),

  // spec 4.2: writes
  'POST collaborator': write('POST', 'collaborator', createdId, 201, NEW_COLLABORATOR, [
    'registration_number',
    'admission_date',
    'pis',
    'occupation_id',
  ]),
  'POST collaborator/photo': write('POST', 'collaborator/photo', successResult, 200, [
    'national_registry',
    'photo_base64',
  ]),
  'PUT collaborator/dismissal': write(
    'PUT',
    'collaborator/dismissal',
    successResult,
    200,
    ['dismissal_date', 'fired_type_id'],
    ['collaborator_id', 'registration_number', 'national_registry', 'fired_description'],
  ),
  'POST point': write('POST', 'point', createdPoint, 201, ['national_registry', 'datetime']),
  'POST absence': write('POST', 'absence', createdAbsence, 201, NEW_ABSENCE, ['attachment[]'], 'multipart'),
  'POST department': write('POST', 'department', createdId, 201, ['description']),
  'POST occupation': write('POST', 'occupation', createdId, 201, ['description'], ['number_cbo']),
  'POST fired-type': write('POST', 'fired-type', createdId, 201, ['name']),
  'POST cost-center': write('POST', 'cost-center', createdId, 201, ['name']),
} as const satisfies Record<string, EndpointDef>;

/** Any endpoint name. */
export type EndpointName = keyof typeof ENDPOINTS;
/** A read endpoint name. */
export type ReadEndpointName = {
  [E in EndpointName]: (typeof ENDPOINTS)[E]['method'] extends 'GET' ? E : never;
}[EndpointName];
/** A write endpoint name. */
export type WriteEndpointName = Exclude<EndpointName, ReadEndpointName>;
/** Every endpoint name (spec §4), in the spec's order: 4.1's reads, then 4.2's writes. */
export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];
const isRead = (name: EndpointName): name is ReadEndpointName => ENDPOINTS[name].method === 'GET';
/** The reads of spec 4.1 in the table. */
export const READ_ENDPOINT_NAMES = ENDPOINT_NAMES.filter(isRead);
/** The 9 writes of spec 4.2. */
export const WRITE_ENDPOINT_NAMES = ENDPOINT_NAMES.filter((name): name is WriteEndpointName => !isRead(name));

/** The validated `data` type of an endpoint. */
export type EndpointData<E extends EndpointName> = z.infer<(typeof ENDPOINTS)[E]['data']>;

/** Read endpoints whose `data` is a list (spec 4.1), which the client can stream. */
export type ListEndpointName = {
  [E in ReadEndpointName]: EndpointData<E> extends readonly unknown[] ? E : never;
}[ReadEndpointName];

/** One element of a list endpoint's `data`. */
export type ElementOf<E extends ListEndpointName> = EndpointData<E> extends readonly (infer T)[] ? T : never;

/** The schema of one element of `data`, for endpoints that answer a list (spec 4.1). */
export function elementSchema(def: EndpointDef): z.ZodType | undefined {
  return def.data instanceof z.ZodArray ? (def.data.element as z.ZodType) : undefined;
}

/**
 * A list endpoint described inline instead of by a row of the table: how a resource reads a
 * GET endpoint nothing else calls (docs/adding-a-resource.md). `name` is the path after `/customer/v2/`.
 */
export interface StreamEndpoint<T = unknown> {
  readonly name: string;
  readonly path: string;
  /** Parameter names the spec lists (as the table's `params`). */
  readonly params: readonly string[];
  /** Schema of one element of `data`. */
  readonly element: z.ZodType<T>;
  /** Schema of `meta`, or null when the endpoint sends none. */
  readonly meta: z.ZodType | null;
}

/** Describes the list endpoint `GET /customer/v2/<name>` inline: its element schema, its `meta` schema (null for none), its parameters. */
export function streamEndpoint<T>(
  name: string,
  element: z.ZodType<T>,
  meta: z.ZodType | null,
  params: readonly string[] = [],
): StreamEndpoint<T> {
  return { name, path: `${API_PREFIX}/${name}`, params, element, meta };
}

/** The name, path, element and meta schemas of a list endpoint, from the table or as described. */
export function streamTarget(endpoint: ListEndpointName | StreamEndpoint): StreamEndpoint {
  if (typeof endpoint !== 'string') return endpoint;
  const def = ENDPOINTS[endpoint];
  return streamEndpoint(endpoint, elementSchema(def)!, def.meta, def.params);
}
