/**
 * The engine every resource runs through: read the declaration's endpoints for one
 * company (and window), validate each element as it arrives, derive its rows and stage
 * them with COPY in bounded batches, then merge the staged tables into the warehouse
 * and reconcile what the answer no longer holds — all in one transaction, so a window
 * is all-or-nothing whatever its size, and memory depends on the batch size, not on the
 * company.
 */
import pLimit from 'p-limit';
import type pg from 'pg';
import type { ApiClient, CallOptions, Scope } from '../api/client.js';
import { apiErrorHas, elementTooLarge, isApiError, type ApiErrorOf } from '../api/errors.js';
import { ENDPOINTS, elementSchema, type ListEndpointName, type StreamEndpoint } from '../api/endpoints.js';
import type { CollaboratorBlock } from '../api/schemas.js';
import type { Logger } from '../logger.js';
import { SEEN_COLLABORATORS, collaboratorRecord, collaboratorRow, type ResourceDeclaration } from '../resources/index.js';
import { todayIn } from '../util/time.js';
import { errorClass, PunchlineError } from '../util/errors.js';
import { normalizeCpf } from '../api/schemas.js';
import { formatPath } from '../api/validate.js';
import { recordRejected } from '../ops/metrics.js';
import { endpointName, type CallTarget, type Emitters, type ReadDeclaration, type RowContext } from '../resources/declaration.js';
import { mergeStaged, MassRemovalError, scopeHasRows, type RemovalGuard, type TableStats } from '../warehouse/merge.js';
import { openStaging, type StagedRow, type StagedTable, type Staging } from '../warehouse/staging.js';
import { columnNames, type LoadScope, type Protection, type TableSpec } from '../warehouse/table-spec.js';
import { createLocalTimeConverter } from '../warehouse/local-time.js';
import { quoteIdent } from '../warehouse/db.js';
import { eraseMentions, hasStandingErasures, upholdPrivacy } from '../warehouse/erasures.js';
import { pseudonymOf } from '../warehouse/pseudonyms.js';
import { withTransaction } from '../warehouse/transaction.js';
import { keepMartsCurrent } from '../marts/upkeep.js';
import { stageName } from '../warehouse/staging.js';
import { CompanyMismatchError, PermanentSyncError, SuspiciousAnswerError } from './errors.js';
import type { Removal } from './job-data.js';
import { publishLoadSpan } from './loader-timing.js';
import { withSpan, type SpanAttributes } from '../util/tracing.js';
import { flushDrift } from './drift-log.js';
import { recordCleanedValues, recordRejections, recordWindowLoad, type Rejection } from './load-records.js';
import { chunkWindow, daysOf, halveWindow, windowDays, type DateWindow } from './windows.js';

/** What the engine works with, besides the resource. */
export interface EngineContext {
  /** The connection's API client (the two calls the engine makes). */
  readonly api: Pick<ApiClient, 'stream' | 'request'>;
  /** The warehouse pool (one client is held for the load's transaction). */
  readonly pool: pg.Pool;
  /** Warehouse schema. */
  readonly schema: string;
  /** Job logger. */
  readonly logger: Logger;
  /** Most calls a load makes at once (per-day and per-item reads, lookup lists). */
  readonly fanOut: number;
  /** Call options for reading `w` (fewer attempts on multi-day windows, which split instead). */
  call(w?: DateWindow, signal?: AbortSignal): CallOptions;
  /** Whether file contents are stored, not only their hashes. */
  readonly storeBinaries: boolean;
  /** Key of the CPF pseudonyms (PSEUDONYM_KEY), when configured. */
  readonly pseudonymKey?: string;
}

/** One load: a resource for one company (and window). */
export interface LoadRequest {
  /** Connection name (bookkeeping). */
  readonly connection: string;
  /** Resource name. */
  readonly name: string;
  /** The sync_runs row of the job, when there is one (bookkeeping). */
  readonly runId?: number;
  /** Its declaration. */
  readonly declaration: ResourceDeclaration;
  /** CNPJ of the company. */
  readonly company: string;
  /** spec 1.4: scope parameters of the company (undefined for the token's own company). */
  readonly scope: Scope | undefined;
  /** IANA zone of the company's date-times (spec 1.2). */
  readonly timezone: string;
  /** The window, for windowed resources. */
  readonly window?: DateWindow;
  /** Forced (`backfill --force`): items already stored are fetched too, and the marts are rebuilt from the window's data. */
  readonly force?: boolean;
  /** Removals an earlier attempt refused; applied now only if this answer removes the same. */
  readonly seenRemovals?: readonly Removal[];
}

/** What a load wrote, per table. */
export interface LoadResult {
  /** Row counts per warehouse table. */
  readonly tables: Record<string, TableStats>;
  /** Records the answer held that could not be stored (see rejected_records). */
  readonly rejected: number;
  /** Items fetched (`items` resources). */
  readonly items?: number;
}

/** More than half of a window's live rows, or all of them, is too much to remove on one answer's word. */
export const suspicious: RemovalGuard = ({ live, removing }) => !(removing * 2 > live || removing === live);

/** The work of one element: its validation result, from a streamed or a single answer. */
type Element = { index: number; ok: true; value: unknown; raw: unknown } | { index: number; ok: false; raw: unknown; error: Error };

/**
 * Runs one load. When the answer would remove a suspicious share of a window's rows,
 * nothing is applied and {@link SuspiciousAnswerError} (retryable) says what was refused;
 * a later attempt, given those refusals as `seenRemovals`, applies a removal only when its
 * own answer would remove exactly the same — the window is read again, after the job's
 * back-off, before anything is removed.
 */
export async function loadResource(ctx: EngineContext, req: LoadRequest, signal?: AbortSignal): Promise<LoadResult> {
  // docs/operations.md "Tracing": the load is a span; its API requests, COPY batches and merges nest under it.
  return withSpan(`load ${req.name}`, 'internal', loadSpanAttributes(req), async (span) => {
    const result = await loadGuarded(ctx, req, signal);
    span?.set(loadResultAttributes(result));
    return result;
  });
}

/** The attributes of a load's span (pure): what it loads, never a row. */
export function loadSpanAttributes(req: Pick<LoadRequest, 'connection' | 'name' | 'company' | 'window'>): SpanAttributes {
  return {
    'punchline.connection': req.connection,
    'punchline.resource': req.name,
    'punchline.company': req.company,
    'punchline.window.start': req.window?.from,
    'punchline.window.end': req.window?.to,
  };
}

/** The counts of a finished load as span attributes (pure). */
export function loadResultAttributes(result: LoadResult): SpanAttributes {
  const sum = (key: 'received' | 'inserted' | 'updated' | 'deleted') => Object.values(result.tables).reduce((n, t) => n + t[key], 0);
  return {
    'punchline.rows.received': sum('received'),
    'punchline.rows.inserted': sum('inserted'),
    'punchline.rows.updated': sum('updated'),
    'punchline.rows.deleted': sum('deleted'),
    'punchline.rejected': result.rejected,
  };
}

/** {@link loadResource} without its span: one load, read again once when a direct copy met a key. */
async function loadGuarded(ctx: EngineContext, req: LoadRequest, signal: AbortSignal | undefined): Promise<LoadResult> {
  const seen = req.seenRemovals ?? [];
  // The same rows of the same table, not only as many.
  const agrees: RemovalGuard = (removal) =>
    suspicious(removal) || seen.some((r) => r.table === removal.table && r.live === removal.live && r.removing === removal.removing && r.digest === removal.digest);
  try {
    try {
      return await loadOnce(ctx, req, agrees, true, signal);
    } catch (err) {
      if (!(err instanceof DirectConflict)) throw err;
      // Another load wrote some of these keys meanwhile, or the answer held a key twice:
      // read the window again and merge it the ordinary way. (The key's values, CPFs among
      // them, are in the error's detail: only the constraint is logged.)
      const { constraint, table } = err.cause as { constraint?: string; table?: string };
      ctx.logger.info({ constraint, table }, 'a row copied straight in met an existing key; reading the window again to merge it');
      return await loadOnce(ctx, req, agrees, false, signal);
    }
  } catch (err) {
    if (!(err instanceof MassRemovals)) throw err;
    const refused = err.refused.map((r) => r.removal);
    ctx.logger.warn({ refused, previous: seen }, 'answer would remove most of the window; nothing removed, the next attempt reads it again');
    throw new SuspiciousAnswerError(req.name, refused, seen.length > 0 ? seen : undefined);
  }
}

/** A row copied straight into a table met a key already there (SQLSTATE 23505). */
class DirectConflict extends errorClass('DirectConflict', 'direct_conflict') {}

/**
 * Whether a load copies its rows straight into its tables (all or none): when the load's scope
 * holds no row of any of its tables yet — a backfill's usual case — there is nothing to
 * reconcile and nothing to merge with, so the rows skip the temporary tables and the
 * `INSERT … ON CONFLICT` that would move them out. Loads whose tables are written by two
 * specs, have derived columns, reconcile through the load's stages or work after the
 * merge are always merged.
 */
async function copiesStraightIn(client: pg.PoolClient, schema: string, req: LoadRequest, specs: readonly TableSpec[], erasing: boolean): Promise<boolean> {
  const { declaration } = req;
  // The stages of a company with erased people are cleaned of them before the merge.
  if (!req.window || declaration.read === 'items' || declaration.afterMerge || erasing) return false;
  const eligible = specs.every(
    (spec) => spec.missing !== undefined && spec.missing.windowRows === undefined && spec.fixed === undefined && specs.filter((s) => s.table === spec.table).length === 1,
  );
  if (!eligible) return false;
  const scope: LoadScope = { company: req.company, ...req.window };
  for (const spec of specs) if (await scopeHasRows(client, schema, spec, scope)) return false;
  return true;
}

/** Every table of a load whose removal the guard refused (each left untouched). */
class MassRemovals extends PunchlineError<'mass_removal'> {
  override readonly name = 'MassRemovals';
  constructor(readonly refused: readonly MassRemovalError[]) {
    super('mass_removal', refused.map((r) => r.message).join('; '));
  }
}

async function loadOnce(ctx: EngineContext, req: LoadRequest, guard: RemovalGuard, allowDirect: boolean, signal: AbortSignal | undefined): Promise<LoadResult> {
  const { declaration } = req;
  const items = declaration.items && req.window ? await declaration.items.list(ctx.pool, (name) => `${quoteIdent(ctx.schema)}.${quoteIdent(name)}`, req.company, req.window, req.force ?? false) : undefined;
  const specs = Object.values(declaration.tables);
  // Collaborator blocks seen in period data are added to `collaborators` (a resource that
  // loads the list itself needs no such side table).
  const addsSeen = declaration.reads.some((r) => r.people) && !specs.some((s) => s.table === 'collaborators');

  return withTransaction(ctx.pool, async (client) => {
    const staging = openStaging(client, addsSeen ? [...specs, SEEN_COLLABORATORS] : specs, {
      stages: addsSeen ? [...specs.map((s) => `stage_${s.table}`), SEEN_STAGE] : undefined,
      onBatch: (table, _bytes, done) => publishLoadSpan(`copy:${table}`, done),
      mergedOnlyWithRows: addsSeen ? [SEEN_STAGE] : undefined,
    });
    const erasing = await hasStandingErasures(client, ctx.schema, req.company);
    const direct = allowDirect && (await copiesStraightIn(client, ctx.schema, req, specs, erasing));
    if (direct) for (const spec of specs) staging.table(spec.table).copyInto(`${quoteIdent(ctx.schema)}.${quoteIdent(spec.table)}`);
    const known = addsSeen ? await knownCollaborators(client, ctx.schema, req.company) : undefined;
    const writer = new ElementWriter(req, staging, specs, known, ctx.storeBinaries, ctx.pseudonymKey);
    try {
      const answered = await readAll(ctx, req, writer, items, signal);
      await staging.finish();
      // docs/privacy.md: the people erased in this company are not brought back by other
      // rows either (a manager's name, a CPF in a text): their mentions go before the merge.
      if (erasing) {
        for (const t of staging.tables()) {
          if (t.direct === undefined && t.rows > 0) await eraseMentions(client, ctx.schema, req.company, `pg_temp.${quoteIdent(t.stage)}`, t.spec.table, columnNames(t.spec));
        }
      }
      return await mergeAll(ctx, req, client, staging, writer, items ? answered : undefined, guard, addsSeen);
    } catch (err) {
      if (direct && (err as { code?: string }).code === '23505') throw new DirectConflict('unique violation in a direct copy', { cause: err });
      throw err;
    }
  });
}

/** Merges the staged tables and records the load, in its transaction; `items` are those answered. */
async function mergeAll(
  ctx: EngineContext,
  req: LoadRequest,
  client: pg.PoolClient,
  staging: Staging,
  writer: ElementWriter,
  items: number[] | undefined,
  guard: RemovalGuard,
  addsSeen: boolean,
): Promise<LoadResult> {
  const { declaration } = req;
  const specs = Object.values(declaration.tables);
  const scope: LoadScope = { company: req.company, ...(req.window ?? {}), ...(items ? { items } : {}), protect: writer.protection() };
  const tables: Record<string, TableStats> = {};
  const refused: MassRemovalError[] = [];
  for (const spec of specs) {
    try {
      tables[spec.table] = await publishLoadSpan(`merge:${spec.table}`, mergeStaged(client, ctx.schema, staging.table(spec.table), scope, guard));
    } catch (err) {
      // Look at every table before deciding, so a second answer can be judged for all.
      if (!(err instanceof MassRemovalError)) throw err;
      refused.push(err);
    }
  }
  if (refused.length > 0) throw new MassRemovals(refused);
  const seen = addsSeen ? await mergeSeen(ctx, client, staging, writer, scope) : undefined;
  if (seen) tables.collaborators = seen;
  if (declaration.afterMerge) Object.assign(tables, await declaration.afterMerge(client, ctx.schema, scope));
  const key = { connection: req.connection, resource: req.name, company: req.company, ...(req.window ?? {}), ...(req.runId === undefined ? {} : { runId: req.runId }) };
  await recordRejections(client, ctx.schema, key, writer.rejections);
  const loaded = Object.fromEntries(specs.map((spec) => [spec.table, tables[spec.table]!]));
  if (req.window) await recordWindowLoad(client, ctx.schema, { ...key, from: req.window.from, to: req.window.to }, loaded, writer.rejections.length);
  // The marts, from what this load changed (its window is recorded: it is covered now).
  const marts = await keepMartsCurrent(
    client,
    { schema: ctx.schema, company: req.company, zone: req.timezone, window: req.window, tables: loaded, seen, stage: stageName, rebuild: req.force === true },
    declaration.marts,
  );
  if (marts) ctx.logger.debug({ marts }, 'marts kept current');
  // Privacy, in the same transaction and after everything this load wrote (rejected
  // records and marts included): people erased in this company stay erased, and new
  // CPFs get their pseudonym (docs/privacy.md).
  const privacy = await upholdPrivacy(client, ctx.schema, req.company, ctx.pseudonymKey);
  if (privacy.staleKey) warnStaleKey(ctx.logger);
  await flushDrift(client, ctx.schema);
  // Text the warehouse cannot store (a NUL character) was stored without it: say where.
  const cleaned = staging.tables().flatMap((t) => t.cleaned().map((c) => ({ table: t.spec.table, ...c })));
  if (cleaned.length > 0) {
    ctx.logger.warn({ cleaned }, 'values stored without a NUL character Postgres cannot store (see schema_drift)');
    await recordCleanedValues(client, ctx.schema, cleaned);
  }
  for (const r of writer.rejections) recordRejected({ resource: req.name, endpoint: r.endpoint, count: 1 });
  return { tables, rejected: writer.rejections.length, ...(items ? { items: items.length } : {}) };
}

let staleKeyWarned = false;

/** Says once per process that this worker's PSEUDONYM_KEY was rotated away (docs/privacy.md "Rotating the key"). */
function warnStaleKey(logger: Logger): void {
  if (staleKeyWarned) return;
  staleKeyWarned = true;
  logger.warn(
    'PSEUDONYM_KEY is older than a key already used on this warehouse: this worker writes no pseudonyms (restart it with the new key)',
  );
}

/** The stage of the collaborator blocks a load of period data saw. */
const SEEN_STAGE = 'stage_seen_collaborators';

/** The key of a collaborator record in the sets below. */
const recordKey = (cpf: string, record: string) => `${cpf}\u001f${record}`;

/**
 * The collaborator records `company` already has in `collaborators`, with the day their
 * attributes are known to hold (a listed record never takes period data). A block of one
 * of these is staged only when it speaks of that day or a later one, since nothing else
 * would change (a record another load adds meanwhile is met by the
 * merge's ON CONFLICT).
 */
async function knownCollaborators(client: pg.PoolClient, schema: string, company: string): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{ cpf: string; collaborator_record: string; active: boolean; as_of: string | null }>(
    `SELECT cpf, collaborator_record, active, attributes_as_of::text AS as_of FROM ${quoteIdent(schema)}.collaborators WHERE company_cnpj = $1`,
    [company],
  );
  // A listed record never takes period data: as if its attributes held forever.
  return new Map(rows.map((r) => [recordKey(r.cpf, r.collaborator_record), r.active ? '9999-12-31' : r.as_of]));
}

/** Adds the collaborators the load saw and the warehouse lacked; counts every one it saw. */
async function mergeSeen(ctx: EngineContext, client: pg.PoolClient, staging: Staging, writer: ElementWriter, scope: LoadScope): Promise<TableStats> {
  const stage = staging.tables().at(-1)!;
  const merged = stage.rows > 0 ? await publishLoadSpan('merge:collaborators', mergeStaged(client, ctx.schema, stage, scope)) : undefined;
  const received = writer.collaboratorsSeen;
  const inserted = merged?.inserted ?? 0;
  const updated = merged?.updated ?? 0;
  return { received, inserted, updated, deleted: 0, unchanged: received - inserted - updated };
}

/** Most sub-records taken out of one element before the element itself is rejected. */
const MAX_SALVAGE = 50;

/**
 * Turns elements into staged rows. An element that breaks its schema keeps what can be
 * stored: the innermost record holding the problem (a punch, a day) is taken out and
 * recorded as rejected with its path, and the rest of the element loads; an element
 * broken at its own level (no CPF) is rejected whole. Rejected records protect their
 * rows from reconciliation: their CPF's rows, their ids' rows, or every row when they
 * told neither.
 */
class ElementWriter {
  /** Records rejected so far. */
  readonly rejections: Rejection[] = [];
  readonly #req: LoadRequest;
  readonly #staging: Staging;
  /** The staging's tables (the collaborators seen last, when the load adds them). */
  readonly #tables: readonly StagedTable[];
  readonly #emit: Emitters<Record<string, TableSpec>>;
  /** Records of the collaborator blocks seen so far, when the load adds them (see {@link knownCollaborators}). */
  readonly #seen: Set<string> | undefined;
  /** The records the warehouse had before the load, with the day their attributes hold. */
  readonly #known: ReadonlyMap<string, string | null>;
  /** The company's today: no period data speaks of a later day. */
  readonly #today: string;
  readonly #toUtc: (local: string) => string;
  readonly #storeBinaries: boolean;
  /** Key of the CPF pseudonyms, to name a collaborator in an error without their CPF. */
  readonly #pseudonymKey: string | undefined;
  readonly #asSent = new WeakMap<object, string>();
  readonly #contexts = new WeakMap<CallTarget, RowContext>();
  readonly #protect = { all: false, cpfs: new Set<string>(), ids: new Map<string, Set<number>>() };

  /** `known`: the records the company's collaborators hold, when the load adds the blocks it sees. */
  constructor(
    req: LoadRequest,
    staging: Staging,
    specs: readonly TableSpec[],
    known: ReadonlyMap<string, string | null> | undefined,
    storeBinaries: boolean,
    pseudonymKey: string | undefined,
  ) {
    this.#req = req;
    this.#staging = staging;
    this.#tables = staging.tables();
    this.#seen = known ? new Set() : undefined;
    this.#known = known ?? new Map();
    this.#today = todayIn(req.timezone);
    this.#toUtc = createLocalTimeConverter(req.timezone);
    this.#storeBinaries = storeBinaries;
    this.#pseudonymKey = pseudonymKey;
    const emit: Record<string, (row: StagedRow) => void> = {};
    for (const spec of specs) {
      const staged = staging.table(spec.table);
      emit[spec.table] = (row) => staged.add(row);
    }
    this.#emit = emit;
  }

  /** Distinct collaborators the load's blocks named. */
  get collaboratorsSeen(): number {
    return this.#seen?.size ?? 0;
  }

  /** The rows reconciliation must leave alone. */
  protection(): Protection {
    const p = this.#protect;
    return { all: p.all, cpfs: [...p.cpfs], ids: Object.fromEntries([...p.ids].map(([k, v]) => [k, [...v]])) };
  }

  /**
   * Stages the rows of one element (what of it can be stored); true when a batch is full
   * and {@link ElementWriter.flush} should be awaited before the next element. Staging
   * synchronously, and awaiting only for full batches, lets an element die young.
   */
  write(read: ReadDeclaration, element: Element, target: CallTarget): boolean {
    if (!element.ok && isApiError(element.error, 'element_too_large')) {
      this.#rejectOversized(read, target, element.index, element.error);
      return false;
    }
    const value = element.ok ? element.value : this.#salvage(read, element.index, element.raw, target);
    if (value === undefined) return false;
    const people: readonly CollaboratorBlock[] = read.people?.(value as never) ?? [];
    const rawPeople = people.length > 0 ? (read.people?.(element.raw as never) ?? []) : [];
    people.forEach((p, i) => {
      // spec 1.4 rule 4: every record names its company; a window holds only the company asked for.
      if (p.company.national_registry !== this.#req.company) {
        // The collaborator by pseudonym, never by CPF: this message is kept in Redis, the warehouse and alerts.
        const who = this.#pseudonymKey === undefined ? '' : ` (collaborator ${pseudonymOf(this.#pseudonymKey, p.national_registry)})`;
        throw new CompanyMismatchError({
          endpoint: endpointName(read.endpoint),
          expected: this.#req.company,
          found: p.company.national_registry,
          where: `data[${element.index}]${who}`,
        });
      }
      const sent = (rawPeople[i] as { national_registry?: unknown } | undefined)?.national_registry;
      if (sent !== undefined && String(sent) !== p.national_registry) this.#asSent.set(p, String(sent));
      if (this.#seen) {
        const key = recordKey(p.national_registry, collaboratorRecord(p));
        if (!this.#seen.has(key)) {
          this.#seen.add(key);
          // The day the block speaks of: the end of the call's window or its day.
          const asOf = minDay(target.window?.to ?? target.date ?? this.#req.window?.to ?? this.#today, this.#today);
          const known = this.#known.get(key);
          if (known === undefined || known === null || known <= asOf) {
            this.#tables.at(-1)!.add(collaboratorRow(this.#req.company, p, this.#asSent.get(p) ?? null, asOf));
          }
        }
      }
    });
    const problem = read.mismatch?.(value as never, target);
    if (problem) throw new PermanentSyncError('response_mismatch', `${endpointName(read.endpoint)}: ${problem}`);
    const ctx = this.#contextOf(target);
    // A value that cannot be stored (a number no column holds, a duration that is no
    // duration) rejects the element: its rows so far are taken back.
    const marks = this.#tables.map((t) => [t, t.mark()] as const);
    try {
      read.rows(value as never, this.#emit, ctx);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      for (const [t, m] of marks) t.rollback(m);
      this.#reject(read, target, element.index, `data[${element.index}]`, err.message, element.raw, element.raw);
    }
    return this.#staging.full;
  }

  /** The row context of a call's elements: one per call, not per element (an object spread per element costs). */
  #contextOf(target: CallTarget): RowContext {
    let ctx = this.#contexts.get(target);
    if (!ctx) {
      ctx = {
        ...target,
        company: this.#req.company,
        toUtc: this.#toUtc,
        storeBinaries: this.#storeBinaries,
        cpfAsSent: (b) => this.#asSent.get(b) ?? null,
      };
      this.#contexts.set(target, ctx);
    }
    return ctx;
  }

  /** Sends the full batches (one on the wire at a time). */
  flush(): Promise<void> {
    return this.#staging.flushFull();
  }

  /**
   * What of a broken element can be stored: takes out the innermost record of each
   * problem (recording it as rejected) until the element validates; undefined when the
   * element itself is broken, which is then rejected whole.
   */
  #salvage(read: ReadDeclaration, index: number, raw: unknown, target: CallTarget): unknown {
    const schema = typeof read.endpoint === 'string' ? (elementSchema(ENDPOINTS[read.endpoint]) ?? ENDPOINTS[read.endpoint].data) : read.endpoint.element;
    const element = structuredClone(raw);
    for (let taken = 0; taken <= MAX_SALVAGE; taken++) {
      const checked = schema.safeParse(element);
      if (checked.success) return checked.data;
      const issue = checked.error.issues[0]!;
      // The innermost array item on the issue's path is the record to take out.
      const at = issue.path.findLastIndex((k) => typeof k === 'number');
      const inner = at < 0 ? issue.path : issue.path.slice(at + 1);
      const reason = `${formatPath('', inner).replace(/^\./, '') || '(record)'}: ${issue.message}`;
      if (at < 0 || taken === MAX_SALVAGE) {
        this.#reject(read, target, index, `data[${index}]`, reason, raw, raw);
        return undefined;
      }
      const list = issue.path.slice(0, at).reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)[k as PropertyKey], element) as unknown[];
      const [record] = list.splice(issue.path[at] as number, 1);
      this.#reject(read, target, index, formatPath(`data[${index}]`, issue.path.slice(0, at + 1)), reason, record, raw);
    }
    return undefined;
  }

  /**
   * An element too large to read (a huge attachment): rejected with its size, and the
   * item it was asked for when the call asked for one, so that its rows are protected.
   */
  #rejectOversized(read: ReadDeclaration, target: CallTarget, index: number, err: ApiErrorOf<'element_too_large'>): void {
    const record = {
      element_bytes: err.bytes ?? null,
      limit_bytes: err.limitBytes,
      ...(target.item === undefined ? {} : read.query(target)),
    };
    const size = err.bytes === undefined ? 'over' : `${err.bytes} bytes, over`;
    this.#reject(read, target, index, `data[${index}]`, `(element): ${size} the limit of ${err.limitBytes} bytes; not read`, record, record);
  }

  #reject(read: ReadDeclaration, target: CallTarget, index: number, path: string, reason: string, record: unknown, element: unknown): void {
    const sent = (element as { national_registry?: unknown } | null)?.national_registry;
    const cpf = sent === undefined ? undefined : normalizeCpf(String(sent ?? ''));
    // A per-day read's path does not name its day: the rejection carries it; and the
    // element's CPF, which a record taken out of it may not hold (forget finds it so).
    this.rejections.push({
      endpoint: endpointName(read.endpoint),
      index,
      path,
      reason,
      record,
      ...(target.date ? { date: target.date } : {}),
      ...(cpf ? { cpf } : {}),
    });
    // Protect what the record stands for: its element's CPF, its own id, or everything.
    if (cpf) {
      this.#protect.cpfs.add(cpf);
      return;
    }
    for (const key of ['point_id', 'absence_id', 'id']) {
      const id = (record as Record<string, unknown> | null)?.[key];
      if (typeof id === 'number' && Number.isSafeInteger(id)) {
        let ids = this.#protect.ids.get(key);
        if (!ids) this.#protect.ids.set(key, (ids = new Set()));
        ids.add(id);
        return;
      }
    }
    this.#protect.all = true;
  }
}

/** The earlier of two days (`YYYY-MM-DD`). */
const minDay = (a: string, b: string) => (a < b ? a : b);

/** True for failures a smaller window may avoid, when they came before any element. */
function isSplittable(err: unknown): boolean {
  return apiErrorHas(err, 'splits');
}

/** What earlier loads learned per endpoint and company: the most days a window may span. */
const spanHints = new Map<string, number>();

/** Reads every call of the load into the writer; returns the items that were answered. */
async function readAll(ctx: EngineContext, req: LoadRequest, writer: ElementWriter, items: number[] | undefined, signal: AbortSignal | undefined): Promise<number[]> {
  const { declaration } = req;
  const answered: number[] = [];
  const fanOut = new FanOut(ctx.fanOut, signal);
  switch (declaration.read) {
    case 'month':
      for (const read of declaration.reads) await readWindow(ctx, req, read, writer, signal);
      break;
    case 'day':
      await fanOut.run(
        declaration.reads.flatMap((read) => daysOf(req.window!).map((date) => ({ read, date }))),
        ({ read, date }, s) => readCall(ctx, req, read, writer, { date }, ctx.call(undefined, s)),
      );
      break;
    case 'list':
      await fanOut.run([...declaration.reads], (read, s) => readCall(ctx, req, read, writer, {}, ctx.call(undefined, s)));
      break;
    case 'items':
      await fanOut.run(
        declaration.reads.flatMap((read) => (items ?? []).map((item) => ({ read, item }))),
        async ({ read, item }, s) => {
          try {
            await readCall(ctx, req, read, writer, { item }, ctx.call(undefined, s));
            answered.push(item);
          } catch (err) {
            if (!read.gone?.(err)) throw err;
            ctx.logger.info({ item }, 'item no longer exists; skipped');
          }
        },
      );
      break;
    case 'group':
      throw new Error(`${req.name}: group resources run through the group walk`);
  }
  return answered.sort((a, b) => a - b);
}

/**
 * Reads a month window in one call; when the API refuses the span (spec 8
 * `date_range_exceeded`) or the call times out before any element arrived, the window is
 * read in halves instead, down to single days. The size of the parts that worked is
 * remembered per endpoint and company, so the next window starts there.
 */
async function readWindow(ctx: EngineContext, req: LoadRequest, read: ReadDeclaration, writer: ElementWriter, signal: AbortSignal | undefined): Promise<void> {
  const hintKey = `${endpointName(read.endpoint)}:${req.company}`;
  const learned = spanHints.get(hintKey);
  const pending: DateWindow[] = learned === undefined ? [req.window!] : chunkWindow(req.window!, learned);
  let split = false;
  while (pending.length > 0) {
    const w = pending.shift()!;
    let started = false;
    try {
      await readCall(ctx, req, read, writer, { window: w }, ctx.call(w, signal), () => (started = true));
    } catch (err) {
      const halves = !started && isSplittable(err) ? halveWindow(w) : undefined;
      if (!halves) throw err;
      ctx.logger.info({ split: `${w.from}..${w.to}`, err }, 'splitting window');
      pending.unshift(...halves);
      split = true;
      continue;
    }
    if (split) spanHints.set(hintKey, Math.min(windowDays(w), spanHints.get(hintKey) ?? Infinity));
  }
}

/** One call: streams a list answer element by element, or takes an object answer as one element. */
async function readCall(
  ctx: EngineContext,
  req: LoadRequest,
  read: ReadDeclaration,
  writer: ElementWriter,
  target: CallTarget,
  opts: CallOptions,
  onFirst?: () => void,
): Promise<void> {
  const query = read.query(target);
  const endpoint = read.endpoint;
  if (typeof endpoint !== 'string' || elementSchema(ENDPOINTS[endpoint])) {
    for await (const element of ctx.api.stream(endpoint as ListEndpointName | StreamEndpoint, query, req.scope, opts)) {
      onFirst?.();
      if (writer.write(read, element, target)) await writer.flush();
    }
    return;
  }
  let data: unknown;
  try {
    ({ data } = await ctx.api.request(endpoint, { query, ...(req.scope ? { scope: req.scope } : {}) }, opts));
  } catch (err) {
    if (!isApiError(err, 'response_too_large')) throw err;
    // An object answer is one element: too large to read, it is rejected like one.
    const error = elementTooLarge({ endpoint: err.endpoint, index: 0, limitBytes: err.limitBytes, setting: 'API_MAX_RESPONSE_BYTES' });
    writer.write(read, { index: 0, ok: false, raw: undefined, error }, target);
    return;
  }
  onFirst?.();
  if (writer.write(read, { index: 0, ok: true, value: data, raw: data }, target)) await writer.flush();
}

/**
 * Runs calls a few at a time; the first failure aborts the calls still running (their
 * signal) and stops new ones, since the whole load fails with it.
 */
class FanOut {
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #parent: AbortSignal | undefined;

  constructor(concurrency: number, parent: AbortSignal | undefined) {
    this.#limit = pLimit(Math.max(1, concurrency));
    this.#parent = parent;
  }

  async run<T>(tasks: readonly T[], fn: (task: T, signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const onParent = () => controller.abort(this.#parent?.reason);
    this.#parent?.addEventListener('abort', onParent, { once: true });
    let failure: { err: unknown } | undefined;
    try {
      await Promise.all(
        tasks.map((task) =>
          this.#limit(async () => {
            if (failure || controller.signal.aborted) return;
            try {
              await fn(task, controller.signal);
            } catch (err) {
              if (!failure) {
                failure = { err };
                controller.abort(err);
              }
            }
          }),
        ),
      );
    } finally {
      this.#parent?.removeEventListener('abort', onParent);
    }
    if (failure) throw failure.err;
  }
}
