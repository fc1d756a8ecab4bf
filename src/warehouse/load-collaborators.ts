/**
 * Collaborators of one company (DESIGN.md §4 "History"). `loadCollaborators` takes the
 * authoritative list (GET collaborator, active collaborators): upserts the current rows,
 * marks collaborators no longer listed inactive (never deletes them), and keeps the SCD
 * type 2 `collaborator_history` of the tracked attributes. `addSeenCollaborators` takes
 * collaborator blocks seen in period data and only adds those the warehouse lacks
 * (dismissed ones): it never overwrites a row and never opens history, since old windows
 * carry old or duplicate records.
 */
import type { CollaboratorBlock } from '../api/schemas.js';
import { quoteIdent, type WarehouseHandle } from './db.js';
import { runCounts, statsOf, sumStats, withTransaction, type LoadStats } from './load-stats.js';
import { toPgArray } from './pg-array.js';
import { columnsOf } from './rows.js';
import { checkCnpj, checkCompanies } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnData, type ColumnSpec, type StatementCounts } from './upsert-statement.js';

/** Attributes whose change opens a new history version (DESIGN.md §4). */
export const TRACKED_ATTRIBUTES = [
  'registration_number',
  'email',
  'name',
  'occupation',
  'department',
  'team',
  'business_unit',
] as const;

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'registration_number', type: 'text' },
  { name: 'email', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'occupation', type: 'text' },
  { name: 'department', type: 'text' },
  { name: 'team', type: 'text' },
  { name: 'business_unit', type: 'text' },
  { name: 'admission_date', type: 'date' },
  { name: 'pis', type: 'text' },
];

function columnsFor(companyCnpj: string, blocks: readonly CollaboratorBlock[]): ColumnData {
  const rows = blocks.map((b) => ({
    company_cnpj: companyCnpj,
    cpf: b.national_registry,
    registration_number: b.registration_number,
    email: b.email,
    name: b.name,
    occupation: b.occupation,
    department: b.department,
    team: b.team,
    business_unit: b.business_unit,
    admission_date: b.admission_date,
    pis: b.pis,
  }));
  return columnsOf(COLUMNS, rows, (r) => r.cpf);
}

/**
 * The history statements (pure): first close the open versions whose tracked attributes
 * differ from the list, then open a version for every listed collaborator left without
 * one. Two statements, because the partial unique index on open versions is checked row
 * by row.
 */
export function buildHistoryStatements(schema: string, companyCnpj: string, rows: ColumnData): { close: BuiltQuery; open: BuiltQuery } {
  const history = `${quoteIdent(schema)}.collaborator_history`;
  const names = ['cpf', ...TRACKED_ATTRIBUTES];
  const values = [companyCnpj, ...names.map((n) => toPgArray(rows[n]!))];
  const src = `unnest(${names.map((_n, i) => `$${i + 2}::text[]`).join(', ')}) AS s(${names.join(', ')})`;
  const tracked = (alias: string) => `ROW(${TRACKED_ATTRIBUTES.map((a) => `${alias}.${a}`).join(', ')})`;
  const close = {
    text:
      `WITH closed AS (\n  UPDATE ${history} AS h SET valid_to = now(), synced_at = now()\n  FROM ${src}\n` +
      `  WHERE h.company_cnpj = $1 AND h.cpf = s.cpf AND h.valid_to IS NULL AND ${tracked('h')} IS DISTINCT FROM ${tracked('s')}\n  RETURNING 1\n)\n` +
      `SELECT 0 AS received, 0 AS inserted, (SELECT count(*) FROM closed)::int AS updated, 0 AS deleted`,
    values,
  };
  const open = {
    text:
      `WITH opened AS (\n  INSERT INTO ${history} (company_cnpj, cpf, valid_from, valid_to, ${TRACKED_ATTRIBUTES.join(', ')}, synced_at)\n` +
      `  SELECT $1, s.cpf, now(), NULL, ${TRACKED_ATTRIBUTES.map((a) => `s.${a}`).join(', ')}, now() FROM ${src}\n` +
      `  WHERE NOT EXISTS (SELECT 1 FROM ${history} h WHERE h.company_cnpj = $1 AND h.cpf = s.cpf AND h.valid_to IS NULL)\n  RETURNING 1\n)\n` +
      `SELECT ${rows['cpf']!.length}::int AS received, (SELECT count(*) FROM opened)::int AS inserted, 0 AS updated, 0 AS deleted`,
    values,
  };
  return { close, open };
}

/** The statements of a collaborator-list load (pure), in execution order. */
export function buildCollaboratorsLoad(schema: string, companyCnpj: string, list: readonly CollaboratorBlock[]): { current: BuiltQuery; close: BuiltQuery; open: BuiltQuery } {
  checkCnpj('collaborators', companyCnpj);
  checkCompanies('collaborators', companyCnpj, list);
  const rows = columnsFor(companyCnpj, list);
  const current = buildUpsert(
    {
      schema,
      table: 'collaborators',
      key: ['company_cnpj', 'cpf'],
      columns: COLUMNS,
      fixed: { active: 'true', source: `'list'` },
      missing: { mode: 'deactivate', where: (p) => `t.company_cnpj = ${p(companyCnpj)}` },
    },
    rows,
  );
  return { current, ...buildHistoryStatements(schema, companyCnpj, rows) };
}

/**
 * Loads the authoritative collaborator list of one company in one transaction: current
 * rows, inactive flags and history. Stats: `collaborators` and `collaborator_history`
 * (versions opened are inserted, versions closed updated).
 */
export async function loadCollaborators(w: WarehouseHandle, companyCnpj: string, list: readonly CollaboratorBlock[]): Promise<LoadStats> {
  const q = buildCollaboratorsLoad(w.schema, companyCnpj, list);
  return withTransaction(w.pool, async (client) => {
    const current = statsOf(await runCounts(client, q.current));
    const closed = await runCounts(client, q.close);
    const opened = await runCounts(client, q.open);
    const history: LoadStats = {
      inserted: opened.inserted,
      updated: closed.updated,
      deleted: 0,
      unchanged: opened.received - opened.inserted,
    };
    return sumStats({ collaborators: current, collaborator_history: history });
  });
}

/** The statement of an add-seen load (pure). */
export function buildSeenCollaboratorsLoad(schema: string, companyCnpj: string, blocks: readonly CollaboratorBlock[]): BuiltQuery {
  checkCnpj('collaborators', companyCnpj);
  checkCompanies('collaborators', companyCnpj, blocks);
  return buildUpsert(
    {
      schema,
      table: 'collaborators',
      key: ['company_cnpj', 'cpf'],
      columns: COLUMNS,
      fixed: { active: 'false', source: `'period'` },
      onConflict: 'nothing',
    },
    columnsFor(companyCnpj, blocks),
  );
}

/** Adds the collaborators seen in period data that the warehouse lacks (inactive, source `period`). */
export async function addSeenCollaborators(w: WarehouseHandle, companyCnpj: string, blocks: readonly CollaboratorBlock[]): Promise<LoadStats> {
  const query = buildSeenCollaboratorsLoad(w.schema, companyCnpj, blocks);
  // One statement, atomic on its own: no transaction block needed (this runs for every
  // part of every period read, so its round trips count).
  const { rows } = await w.pool.query<StatementCounts>(query.text, query.values);
  return sumStats({ collaborators: statsOf(rows[0]!) });
}
