/**
 * The shape of a resource declaration: everything that differs between the API's read
 * endpoints, written once per resource as data — which endpoint, how it is asked for, the
 * element schema (the endpoint's, spec §4), the warehouse tables with their natural keys and
 * columns, how each row is derived from an element, and what a row missing from a complete
 * answer means. One engine (src/load/load-resource.ts) syncs every resource from its declaration.
 */
import type { EndpointData, ReadEndpointName, StreamEndpoint } from '../api/endpoints.js';
import type { Params } from '../api/query.js';
import type { CollaboratorBlock, Company, EconomicGroupEntry } from '../api/schemas.js';
import type { Config } from '../config.js';
import type { MartUpkeep } from '../marts/pending.js';
import type { CellValue } from '../warehouse/copy-text.js';
import type { WarehouseDb } from '../warehouse/db.js';
import type { MergeClient, TableStats } from '../warehouse/merge.js';
import type { LoadScope, TableSpec } from '../warehouse/table-spec.js';
import type { TableClass } from './column-classes.js';

/** A calendar window, both ends inclusive (`YYYY-MM-DD`). */
export interface Window {
  readonly from: string;
  readonly to: string;
}

/**
 * How a resource's answers are asked for: `group` once per connection (the group walk); `list`
 * once per company, no window (spec 4.1 lists); `month` per company and window of at most 31
 * days (spec 8), split in halves only when the API refuses the span or a call times out; `day`
 * one call per day of the window (spec 4.1 `overtime`); `items` one call per item that a parent
 * resource's window loaded (attachments of absences, audit photos of punches).
 */
export type ReadKind = 'group' | CallKind;

/** What one call asks for, by read kind: nothing more than the company, a window, a day or an item. */
export interface TargetOf {
  readonly list: object;
  readonly month: { readonly window: Window };
  readonly day: { readonly date: string };
  readonly items: { readonly item: number };
}

/** The read kinds whose declarations call their endpoints one target at a time. */
export type CallKind = keyof TargetOf;

/** What one call asks for, whatever the kind (the engine's view of {@link TargetOf}). */
export type CallTarget = Partial<TargetOf['month'] & TargetOf['day'] & TargetOf['items']>;

/** The query of a `month` read of spec 4.1's period endpoints: the window's first and last day. */
export const windowQuery = ({ window }: TargetOf['month']): Params => ({
  begin_date: window.from,
  end_date: window.to,
});

/** What a row derivation gets besides the element: the call's target, the company (CNPJ) and its ways. */
export type RowContext<K extends CallKind = CallKind> = TargetOf[K] & {
  readonly company: string;
  /** The company's local date-time (spec 1.2) as an instant for a `timestamptz` column. */
  toUtc(local: string): string;
  /** Whether file contents are stored, not only their hashes (STORE_BINARIES). */
  readonly storeBinaries: boolean;
  /** The CPF of a collaborator block exactly as sent, when it differed from its 11 digits. */
  cpfAsSent(block: CollaboratorBlock): string | null;
};

/** An endpoint a declaration reads: a row of the endpoint table, or a list endpoint described inline. */
export type ReadEndpoint = ReadEndpointName | StreamEndpoint;

/** One element of an endpoint's answer: an element of `data`, or `data` itself for object answers. */
export type ElementOfRead<E extends ReadEndpoint> =
  E extends StreamEndpoint<infer T>
    ? T
    : E extends ReadEndpointName
      ? EndpointData<E> extends readonly (infer T)[]
        ? T
        : EndpointData<E>
      : never;

/** The name of an endpoint, for messages and bookkeeping. */
export const endpointName = (endpoint: ReadEndpoint): string =>
  typeof endpoint === 'string' ? endpoint : endpoint.name;

/** The row a table takes: a value for each of its columns. */
export type RowOf<S extends TableSpec> = { readonly [K in keyof S['columns']]: CellValue };

/** One writer per table of the resource. */
export type Emitters<Ts extends Tables> = { readonly [K in keyof Ts]: (row: RowOf<Ts[K]>) => void };

/** How one endpoint is read, a `K` target at a time, and turned into rows. */
export interface ReadDeclaration<
  E extends ReadEndpoint = ReadEndpoint,
  Ts extends Tables = Tables,
  K extends CallKind = CallKind,
> {
  /** The endpoint (spec 4.1), by name or described inline; list answers are streamed element by element. */
  readonly endpoint: E;
  /** The query parameters of one call (spec 4.1), without scope parameters. */
  query(target: TargetOf[K]): Params;
  /** The collaborator blocks an element carries (spec 2.1): checked against the company, added when new. */
  people?(element: ElementOfRead<E>): readonly CollaboratorBlock[];
  /** A reason the element cannot belong to the call (e.g. another item than asked); fails the window. */
  mismatch?(element: ElementOfRead<E>, target: TargetOf[K]): string | undefined;
  /** True for a failure meaning the item is gone (`items` reads): skipped, not failed. */
  gone?(err: unknown): boolean;
  rows(element: ElementOfRead<E>, out: Emitters<Ts>, ctx: RowContext<K>): void;
}

/** A read endpoint of the endpoint table whose `data` is a `T`. */
type Answering<T> = { [E in ReadEndpointName]: EndpointData<E> extends T ? E : never }[ReadEndpointName];

/** How a `group` resource walks the group (spec 1.4) and turns what it found into rows. */
export interface WalkDeclaration<Ts extends Tables = Tables> {
  /** The group listing (spec 2.3): its members, and which is the headquarters. */
  readonly group: Answering<readonly EconomicGroupEntry[]>;
  /** The company record (spec 2.2): the token's own; with `include_branches=1` (spec 4.1), all it reaches. */
  readonly company: Answering<Company>;
  rows(group: readonly EconomicGroupEntry[], records: readonly Company[], out: Emitters<Ts>): void;
}

/** Work a resource does in the load's transaction after its tables are merged (e.g. SCD2 history). */
export type AfterMerge = (
  client: MergeClient,
  schema: string,
  scope: LoadScope & { readonly company: string },
) => Promise<Record<string, TableStats>>;

/** Which items an `items` resource fetches for a company's window `w` (`db` in the load's schema). */
export type ItemsQuery = (db: WarehouseDb, company: string, w: Window, force: boolean) => Promise<number[]>;

/** The incremental schedules (docs/operations.md "Schedules"): punches, hourly directory, nightly rest. */
export const SCHEDULE_KINDS = ['punches', 'directory', 'nightly'] as const;
/** One incremental schedule. */
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/**
 * The days one tick of a schedule reads, relative to its today: `days` from and to (negative:
 * before today; `lookback`: SYNC_LOOKBACK_DAYS before), or whole calendar `months` (0: the
 * current one); `current` for a resource read without a window. An empty range reads nothing.
 */
export type Horizon =
  | { readonly days: readonly [number | 'lookback', number] }
  | { readonly months: readonly [number, number] }
  | 'current';

/** Every reconciliation check (docs/warehouse.md "Reconciliation checks"), in `punchline verify`'s order. */
export const QUALITY_CHECKS = [
  'window_completeness',
  'totals_vs_days',
  'rule_vs_days',
  'day_vs_punches',
  'punch_without_day',
  'unknown_collaborator',
  'history_overlap',
  'coverage',
  'marts_vs_inputs',
  'headcount_bridge',
  'absence_days_vs_api',
  'clt_vs_source',
] as const;
/** One check. */
export type QualityCheck = (typeof QUALITY_CHECKS)[number];

/** Tables that checks and reports single out, each declared by the resource writing it. */
export type TableRole = 'company' | 'day' | 'punch' | 'totals' | 'absence' | 'absenceMember';

/** A boolean setting (src/config.ts) that a resource needs on to sync when no resources are named. */
export type OptIn = { readonly [K in keyof Config]-?: Config[K] extends boolean ? K : never }[keyof Config];

/** An hour, in seconds (stale-after thresholds). */
export const HOUR = 3600;

/**
 * The directory of people: how a collaborator block that period data carry is added to it —
 * the spec of records only seen there, and the row of block `b` (`asSent`: its CPF as sent,
 * when that differed; `asOf`: the day the data speaks of).
 */
export interface Directory {
  readonly seen: TableSpec;
  seenRow(
    company: string,
    b: CollaboratorBlock,
    asSent: string | null,
    asOf: string | null,
  ): Readonly<Record<string, CellValue>>;
}

/** The warehouse tables a resource writes, by the name its rows are written under (the table's, unless several specs write one table). */
type Tables = Record<string, TableSpec>;

/** What every resource declares besides how it reads. */
interface Declared<Ts extends Tables> {
  readonly tables: Ts;
  readonly afterMerge?: AfterMerge;
  /** What its loads feed into the analyst marts (src/marts/upkeep.ts), kept in the same transaction. */
  readonly marts?: MartUpkeep;
  /** For `items` resources: the resource whose windows list the items, and the query listing them. */
  readonly items?: { readonly parent: string; readonly list: ItemsQuery };
  /** The schedules that read it and the days each tick reads (none for a follow-up: its parent's windows queue it). */
  readonly schedule?: { readonly [K in ScheduleKind]?: Horizon };
  /** Seconds after which `punchline status` calls the last success stale; default a missed night (30 h). */
  readonly staleAfter?: number;
  /** Synced when no resources are named only with this setting on (audit photos are faces). */
  readonly optIn?: OptIn;
  /** The checks its windows' data can change, run after each (coverage follows every window). */
  readonly checks?: readonly QualityCheck[];
  /** The field of its records, a key column of its rows, that ties a rejected record without a CPF to its rows. */
  readonly recordId?: string;
  readonly roles?: { readonly [R in TableRole]?: keyof Ts & string };
  /** Set on the one resource that loads the directory of people, which every collaborator block lands in. */
  readonly directory?: Directory;
  /** The personal data of its tables' columns (docs/privacy.md), those of `afterMerge` tables included. */
  readonly privacy?: Readonly<Record<string, TableClass>>;
}

/** A resource read by calls of its endpoints (most read one), one `K` target at a time. */
export interface CallsDeclaration<
  Ts extends Tables = Tables,
  K extends CallKind = CallKind,
> extends Declared<Ts> {
  readonly read: K;
  readonly reads: readonly ReadDeclaration<ReadEndpoint, Ts, K>[];
}

/** The resource of the group walk. */
export interface GroupDeclaration<Ts extends Tables = Tables> extends Declared<Ts> {
  readonly read: 'group';
  readonly walk: WalkDeclaration<Ts>;
}

/** A resource read by calls, of whichever kind. */
export type CallsResource<Ts extends Tables = Tables> = {
  [K in CallKind]: CallsDeclaration<Ts, K>;
}[CallKind];

/** Everything the engine needs to sync one resource. */
export type ResourceDeclaration<Ts extends Tables = Tables> = GroupDeclaration<Ts> | CallsResource<Ts>;

/**
 * What resources of facts the source changes for weeks share: re-read nightly over the whole
 * lookback horizon, checked for completeness and for collaborators the directory lacks.
 */
export const HORIZON_FACTS = {
  schedule: { nightly: { days: ['lookback', 0] } },
  checks: ['window_completeness', 'unknown_collaborator'],
} as const satisfies Partial<CallsDeclaration>;

/** Declares a read of a `K` resource, its element type checked against the endpoint and its target against the kind. */
export function declareRead<K extends CallKind, E extends ReadEndpoint, Ts extends Tables>(
  _kind: K,
  _tables: Ts,
  read: ReadDeclaration<E, Ts, K>,
): ReadDeclaration<ReadEndpoint, Ts, K> {
  return read as ReadDeclaration<ReadEndpoint, Ts, K>;
}

/**
 * Positions of records that have no id of their own (spec 2.9 adjustments, spec 2.10 occurrences):
 * a counter per key (a day) giving 1, 2, ... in the order the API lists them for one collaborator.
 */
export function sequencer(): (key: string) => number {
  const seen = new Map<string, number>();
  return (key) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n;
  };
}

/** Declares a resource; the catalog keeps it without its table types (the engine reads any). */
export function defineResource<Ts extends Tables>(declaration: GroupDeclaration<Ts>): GroupDeclaration;
export function defineResource<Ts extends Tables, K extends CallKind>(
  declaration: CallsDeclaration<Ts, K>,
): CallsDeclaration<Tables, K>;
export function defineResource(declaration: object): ResourceDeclaration {
  return declaration as ResourceDeclaration;
}
