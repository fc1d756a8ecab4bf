/**
 * SCD type 2 history of collaborator records from the list (`GET collaborator`) staged for
 * a load: open versions whose tracked attributes differ are closed, then listed records
 * left without one get one; per record, so two records of one CPF never close each other's.
 * Two statements: the partial unique index on open versions is checked row by row. Period
 * data never opens history (old windows carry old or duplicate records).
 */
import { quoteIdent } from './db.js';
import type { MergeClient, TableStats } from './merge.js';
import type { BuiltQuery } from './merge-statement.js';

/** Attributes whose change opens a new history version. */
export const TRACKED_ATTRIBUTES = [
  'registration_number',
  'email',
  'name',
  'occupation',
  'department',
  'team',
  'business_unit',
] as const;

/** The close and open statements of one company's staged list (pure). */
export function buildHistoryStatements(
  schema: string,
  companyCnpj: string,
  stage: string,
): { close: BuiltQuery; open: BuiltQuery } {
  const history = `${quoteIdent(schema)}.collaborator_history`;
  const src = quoteIdent(stage);
  const tracked = (alias: string) => `ROW(${TRACKED_ATTRIBUTES.map((a) => `${alias}.${a}`).join(', ')})`;
  return {
    close: {
      text:
        `WITH closed AS (\n  UPDATE ${history} AS h SET valid_to = now(), synced_at = now()\n  FROM ${src} s\n` +
        `  WHERE h.company_cnpj = $1 AND h.cpf = s.cpf AND h.collaborator_record = s.collaborator_record AND h.valid_to IS NULL AND ${tracked('h')} IS DISTINCT FROM ${tracked('s')}\n  RETURNING 1\n)\n` +
        `SELECT (SELECT count(*) FROM closed)::int AS closed`,
      values: [companyCnpj],
    },
    open: {
      text:
        `WITH opened AS (\n  INSERT INTO ${history} (company_cnpj, cpf, collaborator_record, valid_from, valid_to, ${TRACKED_ATTRIBUTES.join(', ')}, synced_at)\n` +
        `  SELECT DISTINCT ON (s.cpf, s.collaborator_record) $1, s.cpf, s.collaborator_record, now(), NULL, ${TRACKED_ATTRIBUTES.map((a) => `s.${a}`).join(', ')}, now() FROM ${src} s\n` +
        `  WHERE NOT EXISTS (SELECT 1 FROM ${history} h WHERE h.company_cnpj = $1 AND h.cpf = s.cpf AND h.collaborator_record = s.collaborator_record AND h.valid_to IS NULL)\n` +
        `  ORDER BY s.cpf, s.collaborator_record, s.ctid DESC\n  RETURNING 1\n)\n` +
        `SELECT (SELECT count(*) FROM ${src})::int AS received, (SELECT count(*) FROM opened)::int AS opened`,
      values: [companyCnpj],
    },
  };
}

/** Closes and opens history versions of one company from its staged list; stats as `collaborator_history`. */
export async function recordHistory(
  client: MergeClient,
  schema: string,
  companyCnpj: string,
  stage: string,
): Promise<TableStats> {
  const q = buildHistoryStatements(schema, companyCnpj, stage);
  const { closed } = (await client.query<{ closed: number }>(q.close.text, q.close.values)).rows[0]!;
  const { received, opened } = (
    await client.query<{ received: number; opened: number }>(q.open.text, q.open.values)
  ).rows[0]!;
  return { received, inserted: opened, updated: closed, deleted: 0, unchanged: received - opened };
}
