/**
 * The analyst views (pure builder): one view in `<schema>_analyst` per relation of the
 * warehouse schema, from the live catalog and personal-data.ts. A CPF column becomes its
 * pseudonym (from cpf_pseudonyms; a tombstone is shown as is), omitted columns are left
 * out, excluded relations get no view; what a later migration adds is covered by the
 * next migrate, by the rules of `classifyColumn`.
 */
import { quoteIdent, quoteLiteral } from '../warehouse/db.js';
import type { SchemaInfo, RelationInfo } from '../warehouse/introspection.js';
import { classifyColumn, PERSONAL_DATA, pseudonymColumnName } from './personal-data.js';
import { TOMBSTONE_PREFIX } from './erasure-functions.js';

/** Postgres truncates longer identifiers. */
const MAX_IDENTIFIER_BYTES = 63;

/** The schema of the analyst views of `schema`: `<schema>_analyst`. */
export function analystSchemaOf(schema: string): string {
  const name = `${schema}_analyst`;
  if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new RangeError(
      `WAREHOUSE_SCHEMA ${schema} is too long: its analyst schema ${name} would exceed ${MAX_IDENTIFIER_BYTES} bytes (use a name of at most ${MAX_IDENTIFIER_BYTES - 8})`,
    );
  }
  return name;
}

/** One analyst view (named as its relation), ready to create: its columns, the base columns left out. */
export interface AnalystView {
  readonly name: string;
  readonly columns: readonly string[];
  readonly omitted: readonly string[];
  /** `CREATE OR REPLACE VIEW ...`. */
  readonly create: string;
  /** `COMMENT ON ...` statements of the view and its columns. */
  readonly comments: readonly string[];
}

const describePseudonym = (column: string) =>
  `Pseudonym of ${column}: the same person has the same pseudonym in every analyst view and every sync ` +
  `(HMAC-SHA-256 computed by punchline with a key the warehouse does not hold; docs/privacy.md). ` +
  `${TOMBSTONE_PREFIX}<n> for a person whose data was erased; null until punchline has computed it.`;

/** The analyst view of one relation, or null when it gets none (excluded, or nothing left to show). */
export function buildAnalystView(relation: RelationInfo, schema: string): AnalystView | null {
  if (PERSONAL_DATA[relation.name]?.excludedFromAnalysts !== undefined) return null;
  const base = quoteIdent(schema);
  const analyst = quoteIdent(analystSchemaOf(schema));
  const joins: string[] = [];
  const omitted: string[] = [];
  const shown: { name: string; expression: string; comment: string | null }[] = [];
  for (const c of relation.columns) {
    const cls = classifyColumn(relation.name, c.name, c.udt);
    const col = `t.${quoteIdent(c.name)}`;
    if (cls.analyst === 'omitted') {
      omitted.push(c.name);
    } else if (cls.analyst === 'pseudonym') {
      const alias = `p${joins.length + 1}`;
      const name = pseudonymColumnName(c.name);
      joins.push(`LEFT JOIN ${base}.cpf_pseudonyms ${alias} ON ${alias}.cpf = ${col}`);
      const value = `CASE WHEN ${col} LIKE '${TOMBSTONE_PREFIX}%' THEN ${col} ELSE ${alias}.pseudonym END`;
      const comment = describePseudonym(c.name);
      shown.push({ name, expression: `${value} AS ${quoteIdent(name)}`, comment });
    } else {
      shown.push({ name: c.name, expression: col, comment: c.comment });
    }
  }
  if (shown.length === 0) return null;
  const view = `${analyst}.${quoteIdent(relation.name)}`;
  const create =
    `CREATE OR REPLACE VIEW ${view} AS\nSELECT ${shown.map((c) => c.expression).join(',\n       ')}\n` +
    `  FROM ${base}.${quoteIdent(relation.name)} t${joins.map((j) => `\n  ${j}`).join('')}`;
  const summary =
    `Analyst view of ${schema}.${relation.name}` +
    (omitted.length > 0 ? `, without ${omitted.join(', ')}` : '') +
    `; CPFs replaced by pseudonyms (docs/privacy.md).` +
    (relation.comment ? ` ${relation.comment}` : '');
  return {
    name: relation.name,
    columns: shown.map((c) => c.name),
    omitted,
    create,
    comments: [
      `COMMENT ON VIEW ${view} IS ${quoteLiteral(summary)}`,
      ...shown
        .filter((c) => c.comment)
        .map((c) => `COMMENT ON COLUMN ${view}.${quoteIdent(c.name)} IS ${quoteLiteral(c.comment!)}`),
    ],
  };
}

/** Every analyst view of the relations of `schema`, in their order. */
export function buildAnalystViews(relations: SchemaInfo, schema: string): AnalystView[] {
  return relations.map((r) => buildAnalystView(r, schema)).filter((v): v is AnalystView => v !== null);
}
