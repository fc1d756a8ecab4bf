/**
 * A write kind of `punchline push` as data: its columns, the names it resolves into ids, how a row
 * becomes the body, how an existing entity is recognised before writing, how the write is sent and
 * which sync windows it touches. One engine (engine.ts) runs every kind declared so.
 */
import type { ApiClient, CallOptions } from '../api/client.js';
import type { WriteEndpointName } from '../api/endpoints.js';
import type { WorkItem } from '../plan/planner.js';
import type { SqlRunner } from '../warehouse/db.js';
import type { FieldType } from './fields.js';
import type { LookupTable } from '../resources/lookups.js';

/** One accepted column: its type, whether a row must have it, and a line for the docs. */
export interface ColumnSpec {
  /** How the value is read (fields.ts). */
  readonly type: FieldType;
  readonly required?: boolean;
  /** What the column holds (docs/push.md, `--help`). */
  readonly doc: string;
  /** For `file` and `base64` columns: the content must be a JPEG or PNG image. */
  readonly accept?: 'image';
}

/**
 * A body field that wants an id and may instead be given by name (`department_id` or `department`),
 * resolved in the token's company from the warehouse, else from the API's lookup list.
 */
export interface Reference {
  /** Field of the request body (spec 4.2), also accepted as a column. */
  readonly idField: string;
  /** Column naming the entity instead. */
  readonly nameColumn: string;
  readonly table: LookupTable;
  /** A row must give the id or the name. */
  readonly required: boolean;
}

/** The values of one row after reading, file checks and name resolution. */
export type RowValues = Readonly<Record<string, unknown>>;

export { RowInvalid } from './row-invalid.js';

/** A row's values as its body: its columns and id fields are the body's fields (spec 4.2), each when given. */
export function valuesAsBody<B>(values: RowValues): B {
  return { ...values } as B;
}

/** What the check before writing found for one row. */
export type Existing =
  /** The entity exists: the row is skipped (`id` when the read shows it). */
  | { readonly exists: true; readonly note: string; readonly id?: string }
  /** Part of it exists: send `body` instead, and say so. */
  | { readonly exists: false; readonly body: unknown; readonly note: string };

/** What a check before writing may use. */
export interface CheckContext {
  /** The connection's budget-limited client. */
  readonly api: ApiClient;
  /** The warehouse (lookups, collaborators, push receipts). */
  readonly db: SqlRunner;
  readonly schema: string;
  /** CNPJ of the token's company: writes act there (spec 1.4 rule 2). */
  readonly company: string;
  /** Today in the connection's time zone (`YYYY-MM-DD`). */
  readonly today: string;
  /** Call options of every read (abort). */
  readonly call: CallOptions;
}

/** One row the check looks at: its index in the run's rows, its body and {@link WriteKind.key}. */
export interface Candidate<B> {
  readonly index: number;
  readonly body: B;
  readonly key: string;
}

/** One write kind of `punchline push`; see the file comment. */
export interface WriteKind<B = unknown> {
  /** The kind as typed on the command line. */
  readonly name: string;
  /** The write endpoint (spec 4.2). */
  readonly endpoint: WriteEndpointName;
  /** One line saying what a row does. */
  readonly summary: string;
  /** Accepted columns besides the references' (spec 4.2 field names where there is one). */
  readonly columns: Readonly<Record<string, ColumnSpec>>;
  /** Id fields that may be given by name. */
  readonly references: readonly Reference[];
  /** Cross-field rules and the request body (pure); throws {@link RowInvalid}. */
  body(values: RowValues): B;
  /** The entity's identity within the company: equal keys are the same entity. */
  key(body: B): string;
  /** How the entity is named in the summary and report (default: its key). */
  label?(body: B): string;
  /** The check before writing (the API has no idempotency key): which candidates, in file order, exist. */
  check(ctx: CheckContext, candidates: readonly Candidate<B>[]): Promise<Map<number, Existing>>;
  /** Sends the write, reading files at that moment; `id` is the new id when the endpoint gives one. */
  write(api: ApiClient, body: B, opts: CallOptions): Promise<{ readonly id?: string }>;
  /** The sync work that shows the new entity in the warehouse. */
  touches(body: B): WorkItem[];
  /** What the warehouse keeps of a successful write besides its receipt (e.g. a dismissal's date, which no read shows). */
  recorded?(
    db: SqlRunner,
    schema: string,
    at: { readonly company: string; readonly connection: string },
    body: B,
  ): Promise<void>;
}

/** `read` with each answer kept by its argument (as JSON): a check asks for each window or list once. */
export function readOnce<A, R>(read: (arg: A) => R): (arg: A) => R {
  const answers = new Map<string, R>();
  return (arg) => {
    const key = JSON.stringify(arg);
    if (!answers.has(key)) answers.set(key, read(arg));
    return answers.get(key)!;
  };
}

/** `items` grouped by `keyOf`, each group in the items' order. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (groups.has(key)) groups.get(key)!.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
