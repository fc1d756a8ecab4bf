/**
 * The element writer of a load: validates each element of an answer and stages its rows. An element
 * that breaks its schema keeps what can be stored: the innermost record holding the problem (a
 * punch, a day) is taken out and recorded as rejected with its path, and the rest loads; an element
 * broken at its own level (no CPF) is rejected whole. Rejected records protect their rows from
 * reconciliation: their CPF's, their ids', or every row when they told neither.
 */
import { isApiError, type ApiErrorOf } from '../api/errors.js';
import { ENDPOINTS, elementSchema } from '../api/endpoints.js';
import { normalizeCpf, type CollaboratorBlock } from '../api/schemas.js';
import { formatPath } from '../api/validate.js';
import {
  endpointName,
  type CallTarget,
  type Emitters,
  type ReadDeclaration,
  type RowContext,
} from '../resources/declaration.js';
import { pseudonymOf } from '../privacy/pseudonyms.js';
import { createLocalTimeConverter } from '../util/local-time.js';
import type { StagedRow, StagedTable, Staging } from '../warehouse/staging.js';
import type { Protection, TableSpec } from '../warehouse/table-spec.js';
import type { CompanyLoad, EngineContext } from './context.js';
import { CompanyMismatchError, PermanentSyncError } from './errors.js';
import type { Rejection } from './load-records.js';
import type { SeenCollaborators } from './seen-collaborators.js';

/** The work of one element: its validation result, from a streamed or a single answer. */
export type Element =
  | { index: number; ok: true; value: unknown; raw: unknown }
  | { index: number; ok: false; raw: unknown; error: Error };

/** Most sub-records taken out of one element before the element itself is rejected. */
const MAX_SALVAGE = 50;

/** Turns elements into staged rows (see the file comment). */
export class ElementWriter {
  readonly rejections: Rejection[] = [];
  readonly #req: CompanyLoad;
  readonly #staging: Staging;
  /** The staging's tables (the collaborators seen last, when the load adds them). */
  readonly #tables: readonly StagedTable[];
  readonly #emit: Emitters<Record<string, TableSpec>>;
  /** The collaborator blocks seen, when the load adds them. */
  readonly #seen: SeenCollaborators | undefined;
  readonly #toUtc: (local: string) => string;
  /** STORE_BINARIES, and the pseudonym key that names a collaborator in an error without their CPF. */
  readonly #ctx: Pick<EngineContext, 'storeBinaries' | 'pseudonymKey'>;
  readonly #asSent = new WeakMap<object, string>();
  readonly #contexts = new WeakMap<CallTarget, RowContext>();
  readonly #protect = { all: false, cpfs: new Set<string>(), ids: new Map<string, Set<number>>() };

  /** `seen`: where the collaborator blocks go, when the load adds those it sees. */
  constructor(
    req: CompanyLoad,
    staging: Staging,
    specs: readonly TableSpec[],
    seen: SeenCollaborators | undefined,
    ctx: Pick<EngineContext, 'storeBinaries' | 'pseudonymKey'>,
  ) {
    this.#req = req;
    this.#staging = staging;
    this.#tables = staging.tables();
    this.#seen = seen;
    this.#toUtc = createLocalTimeConverter(req.timezone);
    this.#ctx = ctx;
    const emit: Record<string, (row: StagedRow) => void> = {};
    for (const spec of specs) {
      const staged = staging.table(spec.table);
      emit[spec.table] = (row) => staged.add(row);
    }
    this.#emit = emit;
  }

  /** The rows reconciliation must leave alone. */
  protection(): Protection {
    const p = this.#protect;
    return {
      all: p.all,
      cpfs: [...p.cpfs],
      ids: Object.fromEntries([...p.ids].map(([k, v]) => [k, [...v]])),
    };
  }

  /**
   * Stages the rows of one element (what of it can be stored); true when a batch is full and {@link
   * ElementWriter.flush} should be awaited first. Staging synchronously lets an element die young.
   */
  write(read: ReadDeclaration, element: Element, target: CallTarget): boolean {
    if (!element.ok && isApiError(element.error, 'element_too_large')) {
      this.#rejectOversized(read, target, element.index, element.error);
      return false;
    }
    if (!element.ok && isApiError(element.error, 'element_too_deep')) {
      const { limitDepth } = element.error;
      const record = { limit_depth: limitDepth, ...(target.item === undefined ? {} : read.query(target)) };
      const reason = `(element): nested deeper than ${limitDepth} levels; not read`;
      this.#reject(read, target, element.index, `data[${element.index}]`, reason, record, record);
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
        const key = this.#ctx.pseudonymKey;
        const who = key === undefined ? '' : ` (collaborator ${pseudonymOf(key, p.national_registry)})`;
        throw new CompanyMismatchError({
          endpoint: endpointName(read.endpoint),
          expected: this.#req.company,
          found: p.company.national_registry,
          where: `data[${element.index}]${who}`,
        });
      }
      const sent = (rawPeople[i] as { national_registry?: unknown } | undefined)?.national_registry;
      if (sent !== undefined && String(sent) !== p.national_registry) this.#asSent.set(p, String(sent));
      this.#seen?.note(
        p,
        this.#asSent.get(p) ?? null,
        target.window?.to ?? target.date ?? this.#req.window?.to,
      );
    });
    const problem = read.mismatch?.(value as never, target);
    if (problem)
      throw new PermanentSyncError('response_mismatch', `${endpointName(read.endpoint)}: ${problem}`);
    const ctx = this.#contextOf(target);
    // A value that cannot be stored (a number no column holds, a duration that is no
    // duration) rejects the element: its rows so far are taken back.
    const marks = this.#tables.map((t) => [t, t.mark()] as const);
    try {
      read.rows(value as never, this.#emit, ctx);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      for (const [t, m] of marks) t.rollback(m);
      this.#reject(
        read,
        target,
        element.index,
        `data[${element.index}]`,
        err.message,
        element.raw,
        element.raw,
      );
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
        storeBinaries: this.#ctx.storeBinaries,
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

  /** What of a broken element can be stored (its broken records taken out); undefined: rejected whole. */
  #salvage(read: ReadDeclaration, index: number, raw: unknown, target: CallTarget): unknown {
    const schema =
      typeof read.endpoint === 'string'
        ? (elementSchema(ENDPOINTS[read.endpoint]) ?? ENDPOINTS[read.endpoint].data)
        : read.endpoint.element;
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
      const list = issue.path
        .slice(0, at)
        .reduce<unknown>(
          (o, k) => (o as Record<PropertyKey, unknown>)[k as PropertyKey],
          element,
        ) as unknown[];
      const [record] = list.splice(issue.path[at] as number, 1);
      this.#reject(
        read,
        target,
        index,
        formatPath(`data[${index}]`, issue.path.slice(0, at + 1)),
        reason,
        record,
        raw,
      );
    }
    return undefined;
  }

  /** Rejects an element too large to read (a huge attachment), naming its item so its rows are protected. */
  #rejectOversized(
    read: ReadDeclaration,
    target: CallTarget,
    index: number,
    err: ApiErrorOf<'element_too_large'>,
  ): void {
    const record = {
      element_bytes: err.bytes ?? null,
      limit_bytes: err.limitBytes,
      ...(target.item === undefined ? {} : read.query(target)),
    };
    const size = err.bytes === undefined ? 'over' : `${err.bytes} bytes, over`;
    this.#reject(
      read,
      target,
      index,
      `data[${index}]`,
      `(element): ${size} the limit of ${err.limitBytes} bytes; not read`,
      record,
      record,
    );
  }

  #reject(
    read: ReadDeclaration,
    target: CallTarget,
    index: number,
    path: string,
    reason: string,
    record: unknown,
    element: unknown,
  ): void {
    const sent = (element as { national_registry?: unknown } | null)?.national_registry;
    const cpf = sent === undefined ? undefined : normalizeCpf(String(sent ?? ''));
    // A per-day read's path does not name its day: the rejection carries it; and the
    // element's CPF, which a record taken out of it may not hold (forget finds it so).
    const endpoint = endpointName(read.endpoint);
    this.rejections.push({ endpoint, index, path, reason, record, date: target.date, cpf: cpf || undefined });
    // Protect what the record stands for: its element's CPF, its own id (the declaration's `recordId`), or everything.
    if (cpf) {
      this.#protect.cpfs.add(cpf);
      return;
    }
    const key = this.#req.declaration.recordId;
    const id = key === undefined ? undefined : (record as Record<string, unknown> | null)?.[key];
    if (key !== undefined && typeof id === 'number' && Number.isSafeInteger(id)) {
      let ids = this.#protect.ids.get(key);
      if (!ids) this.#protect.ids.set(key, (ids = new Set()));
      ids.add(id);
      return;
    }
    this.#protect.all = true;
  }
}
