/**
 * Names given instead of ids (`department` for `department_id`, ...), resolved in the token's company:
 * first from the warehouse's lookup tables (active rows, no request), then, for a name it lacks (not
 * synced yet, or created since), from the API's list, read once per run. A name that matches several
 * records is refused rather than guessed.
 */
import { sql } from 'kysely';
import type { ApiClient, CallOptions } from '../api/client.js';
import { LOOKUP_READS, type LookupTable } from '../resources/lookups.js';
import { groupBy, readOnce } from './kind.js';
import { RowInvalid } from './row-invalid.js';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';

/** A lookup record as far as resolution needs it. */
export interface LabeledRecord {
  readonly id: number;
  /** Its description or name. */
  readonly label: string;
}

/** Where a lookup list lives: its warehouse table's label column, its read endpoint, its API list. */
export interface ReferenceSource {
  /** Label column of the warehouse table and field of the API record (spec 2.4). */
  readonly label: 'description' | 'name';
  /** Read endpoint, for messages. */
  readonly endpoint: string;
  list(api: ApiClient, call: CallOptions): Promise<LabeledRecord[]>;
}

/** spec 2.4: the lookup lists a write may reference, by warehouse table (src/resources/lookups.ts). */
export const REFERENCE_SOURCES = Object.fromEntries(
  LOOKUP_READS.map(({ endpoint, table, label }): [LookupTable, ReferenceSource] => [
    table,
    {
      label,
      endpoint: `GET ${endpoint}`,
      list: async (api, c) =>
        (await api.request(endpoint, {}, c)).data.map((r) => ({
          id: r.id,
          label: 'description' in r ? r.description : r.name,
        })),
    },
  ]),
) as Readonly<Record<LookupTable, ReferenceSource>>;

/**
 * The form of a label used for matching: Unicode NFC, blanks collapsed, trimmed, case folded.
 * "Vendas ", "vendas" and "VENDAS" are the same department.
 */
export function normalizeLabel(label: string): string {
  return label.normalize('NFC').replace(/\s+/g, ' ').trim().toLocaleLowerCase('pt-BR');
}

/** Groups records by normalised label. */
export function byLabel(records: readonly LabeledRecord[]): Map<string, LabeledRecord[]> {
  return groupBy(records, (r) => normalizeLabel(r.label));
}

/** Resolves names to ids for one run and company; see the file comment. */
export class ReferenceResolver {
  /** The company's active records of `table` in the warehouse, by label. */
  private readonly warehouse = readOnce((table: LookupTable) =>
    warehouseDb(this.deps.db, this.deps.schema)
      .selectFrom(table)
      .select(['id', sql.ref<string>(REFERENCE_SOURCES[table].label).as('label')])
      .where('company_cnpj', '=', this.deps.company)
      .where('active', '=', true)
      .execute()
      .then(byLabel),
  );

  /** The API's list of `table`, by label (read once per run). */
  private readonly api = readOnce((table: LookupTable) =>
    REFERENCE_SOURCES[table].list(this.deps.api, this.deps.call).then(byLabel),
  );

  constructor(
    private readonly deps: {
      db: SqlRunner;
      schema: string;
      company: string;
      api: ApiClient;
      call: CallOptions;
    },
  ) {}

  /** The id of the record of `table` named `name`; throws {@link RowInvalid} when none or several match. */
  async resolve(table: LookupTable, column: string, name: string): Promise<number> {
    const key = normalizeLabel(name);
    let hits = (await this.warehouse(table)).get(key);
    if (!hits) hits = (await this.api(table)).get(key);
    const source = REFERENCE_SOURCES[table];
    if (!hits || hits.length === 0) {
      throw new RowInvalid(
        `${column}: no ${table.replace(/_/g, ' ').replace(/s$/, '')} with ${source.label} ${JSON.stringify(name)} in company ${this.deps.company} (warehouse and ${source.endpoint})`,
      );
    }
    if (hits.length > 1) {
      throw new RowInvalid(
        `${column}: ${JSON.stringify(name)} matches ids ${hits.map((h) => h.id).join(', ')}; give the id column instead`,
      );
    }
    return hits[0]!.id;
  }
}
