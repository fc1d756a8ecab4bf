/**
 * The collaborators a load of period data meets in its elements' collaborator blocks
 * (spec 2.1): those the warehouse lacks, or knows only from an earlier day, are staged
 * and added to the directory of people (the declaration that sets `directory`) in the
 * load's transaction (docs/architecture.md "Collaborator history").
 */
import type pg from 'pg';
import type { CollaboratorBlock } from '../api/schemas.js';
import { DIRECTORY, collaboratorRecord } from '../resources/index.js';
import { quoteIdent } from '../warehouse/db.js';
import { mergeStaged, type TableStats } from '../warehouse/merge.js';
import type { StagedTable, Staging } from '../warehouse/staging.js';
import type { LoadScope } from '../warehouse/table-spec.js';
import { publishLoadSpan } from './timing.js';

/** The stage of the collaborator blocks a load of period data saw. */
export const SEEN_STAGE = `stage_seen_${DIRECTORY.seen.table}`;

/** The key of a collaborator record in the sets below. */
const recordKey = (cpf: string, record: string) => `${cpf}\u001f${record}`;

/**
 * The collaborator records `company` already has in the directory, with the day their
 * attributes are known to hold (a listed record never takes period data). A block of one
 * of these is staged only when it speaks of that day or a later one, since nothing else
 * would change (a record another load adds meanwhile is met by the
 * merge's ON CONFLICT).
 */
export async function knownCollaborators(
  client: pg.PoolClient,
  schema: string,
  company: string,
): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{
    cpf: string;
    collaborator_record: string;
    active: boolean;
    as_of: string | null;
  }>(
    `SELECT cpf, collaborator_record, active, attributes_as_of::text AS as_of FROM ${quoteIdent(schema)}.${quoteIdent(DIRECTORY.seen.table)} WHERE company_cnpj = $1`,
    [company],
  );
  // A listed record never takes period data: as if its attributes held forever.
  return new Map(
    rows.map((r) => [recordKey(r.cpf, r.collaborator_record), r.active ? '9999-12-31' : r.as_of]),
  );
}

/** The collaborator records of one load's blocks, each staged at most once. */
export class SeenCollaborators {
  readonly #seen = new Set<string>();
  readonly #company: string;
  readonly #known: ReadonlyMap<string, string | null>;
  readonly #stage: StagedTable;
  readonly #today: string;

  /** `known` as {@link knownCollaborators} reads it; `stage` the table of {@link SEEN_STAGE}; `today` the company's. */
  constructor(company: string, known: ReadonlyMap<string, string | null>, stage: StagedTable, today: string) {
    this.#company = company;
    this.#known = known;
    this.#stage = stage;
    this.#today = today;
  }

  /** Distinct collaborators the load's blocks named. */
  get count(): number {
    return this.#seen.size;
  }

  /** Notes block `p` (its CPF as sent, when that differed) of a call about `day` (the end of its window, or its day). */
  note(p: CollaboratorBlock, asSent: string | null, day: string | undefined): void {
    const key = recordKey(p.national_registry, collaboratorRecord(p));
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    // No period data speaks of a day after the company's today.
    const asOf = day === undefined || day > this.#today ? this.#today : day;
    const known = this.#known.get(key);
    if (known === undefined || known === null || known <= asOf)
      this.#stage.add(DIRECTORY.seenRow(this.#company, p, asSent, asOf));
  }
}

/** Adds the collaborators the load saw and the warehouse lacked; counts every one it saw. */
export async function mergeSeen(
  client: pg.PoolClient,
  schema: string,
  staging: Staging,
  seen: SeenCollaborators,
  scope: LoadScope,
): Promise<TableStats> {
  const stage = staging.tables().at(-1)!;
  const merged =
    stage.rows > 0
      ? await publishLoadSpan(`merge:${stage.spec.table}`, mergeStaged(client, schema, stage, scope))
      : undefined;
  const received = seen.count;
  const inserted = merged?.inserted ?? 0;
  const updated = merged?.updated ?? 0;
  return { received, inserted, updated, deleted: 0, unchanged: received - inserted - updated };
}
