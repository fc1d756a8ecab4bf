/**
 * Request encoding of spec 1.2–1.4 as pure builders: query strings with repeated `name[]`
 * keys, the GET-only scope parameters, and the multipart form of `POST absence`.
 */
import { Blob } from 'node:buffer';
import { FormData } from 'undici';

/** A parameter value: lists are repeated keys (spec 1.3), booleans `1`/`0` (spec 1.2), undefined is omitted. */
export type ParamValue = string | number | boolean | readonly (string | number)[] | undefined | null;

/** Parameters by name, exactly as sent (list names end in `[]`). */
export type Params = Readonly<Record<string, ParamValue>>;

/** spec 1.4: scope parameters, GET only. */
export interface Scope {
  /** Restrict the scope to one company of the group (CNPJ, digits). */
  companyNationalRegistry?: string;
  /** Aggregate the headquarters and all branches (`include_branches=1`). */
  includeBranches?: boolean;
}

/** spec 1.2: booleans in requests are `1` or `0`. */
export function encodeScalar(value: string | number | boolean): string {
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}

/** spec 1.4: the scope as query parameters (`include_branches=1`, `company_national_registry`). */
export function scopeParams(scope: Scope | undefined): Params {
  if (!scope) return {};
  return {
    ...(scope.includeBranches ? { include_branches: true } : {}),
    ...(scope.companyNationalRegistry !== undefined
      ? { company_national_registry: scope.companyNationalRegistry }
      : {}),
  };
}

/** A query string, no `?`. spec 1.3: a list repeats its key once per item; keys go as given (`name[]`). */
export function buildQuery(params: Params): string {
  const search = new URLSearchParams();
  eachParam(params, (key, value) => search.append(key, value));
  return search.toString();
}

/** Hands each parameter to `add` encoded, a list once per item; undefined and null are left out. */
function eachParam(params: Params, add: (key: string, value: string) => void): void {
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const items = (Array.isArray(value) ? value : [value]) as readonly (string | number | boolean)[];
    for (const item of items) add(key, encodeScalar(item));
  }
}

/** One file of `attachment[]` (spec 4.2 `POST absence`). */
export interface Attachment {
  /** File name sent in the part's Content-Disposition. */
  filename: string;
  /** MIME type of the part. */
  mimeType: string;
  content: Uint8Array;
}

/** A multipart form (spec 1.3 rule 5): a list repeats its `name[]` field; one `attachment[]` per file. */
export function buildMultipart(fields: Params, attachments: readonly Attachment[] = []): FormData {
  const form = new FormData();
  eachParam(fields, (key, value) => form.append(key, value));
  for (const file of attachments) {
    form.append('attachment[]', new Blob([file.content], { type: file.mimeType }), file.filename);
  }
  return form;
}
