/**
 * The data dictionary of docs/warehouse.md (tables and views with comments, columns, keys,
 * and an ER diagram by the keys the resource declarations name), and the kysely types of
 * src/warehouse/database.ts, rendered from a schema's introspection. Pure:
 * scripts/warehouse-docs.ts introspects a freshly migrated schema and writes both.
 */
import type { ColumnInfo, ForeignKeyInfo, RelationInfo } from './introspection.js';
import type { TableSpec } from './table-spec.js';

/** The line that separates the hand-written part of docs/warehouse.md from the generated one. */
export const GENERATED_MARKER =
  '<!-- Generated below by `npm run docs:warehouse` from the migrated schema: edit the COMMENTs in sql/ (a new migration) or the text above this line, never below it. -->';

/** A resource as the dictionary tells it (src/resources/): what fills which tables, read how, from which endpoints. */
export interface ResourceSummary {
  /** The name `--resources` takes. */
  readonly name: string;
  /** Its read kind (`month`, `items of punches`, …). */
  readonly read: string;
  /** The endpoints it reads (spec §4 names). */
  readonly endpoints: readonly string[];
  readonly tables: readonly TableSpec[];
}

/** One edge of the ER diagram, from the referring table `child`. */
export interface TableRelation extends ForeignKeyInfo {
  readonly child: string;
  /** `one` when the referring columns are the child's whole primary key (zero or one child per parent). */
  readonly cardinality: 'one' | 'many';
}

const primaryKey = (r: RelationInfo) => r.keys.find((k) => k.kind === 'primary key')?.columns ?? [];
/** The key a row is found by: the primary key, else the first unique key on all rows. */
const naturalKey = (r: RelationInfo) =>
  r.keys.find((k) => k.kind === 'primary key') ?? r.keys.find((k) => k.where === null);
const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((c) => b.includes(c));

/** The references a table's columns make, before implied ones are left out. */
function candidateReferences(
  table: RelationInfo,
  names: ReadonlySet<string>,
  references: readonly ForeignKeyInfo[],
): ForeignKeyInfo[] {
  const columns = table.columns.map((c) => c.name);
  const found = [
    ...table.foreignKeys,
    ...references.filter(
      (ref) =>
        names.has(ref.parent) &&
        ref.columns.every((c) => columns.includes(c)) &&
        !(ref.parent === table.name && sameSet(ref.columns, ref.parentColumns)),
    ),
  ];
  return found.filter(
    (ref, i) => found.findIndex((o) => o.parent === ref.parent && sameSet(o.columns, ref.columns)) === i,
  );
}

/**
 * The relations between tables: foreign keys and the key references of `specs`, leaving
 * out those implied by a wider one (company_cnpj by company_cnpj + cpf) or by one to a
 * table making the same reference (an audit photo's company is its punch's), and a
 * table's reference to itself through its own key.
 */
export function deriveRelations(
  relations: readonly RelationInfo[],
  specs: readonly TableSpec[],
): TableRelation[] {
  // Few relations are foreign keys (rows arrive window by window in any order), so specs say
  // how they are named (`referredBy`): a table with those columns refers to that table.
  const references: ForeignKeyInfo[] = [
    ...specs.flatMap((s) =>
      (s.referredBy ?? []).map((columns) => ({
        columns,
        parent: s.table,
        parentColumns: s.key.slice(0, columns.length),
      })),
    ),
    { columns: ['run_id'], parent: 'sync_runs', parentColumns: ['id'] },
  ];
  const tables = relations.filter((r) => r.kind === 'table');
  const names = new Set(tables.map((t) => t.name));
  const candidates = new Map(tables.map((t) => [t.name, candidateReferences(t, names, references)]));
  const out: TableRelation[] = [];
  for (const table of tables) {
    const own = candidates.get(table.name)!;
    const implied = (ref: ForeignKeyInfo) =>
      own.some(
        (other) =>
          (other.columns.length > ref.columns.length &&
            ref.columns.every((c) => other.columns.includes(c))) ||
          (other.parent !== ref.parent &&
            other.parent !== table.name &&
            (candidates.get(other.parent) ?? []).some(
              (up) => up.parent === ref.parent && sameSet(up.columns, ref.columns),
            )),
      );
    for (const ref of own.filter((r) => !implied(r))) {
      out.push({
        ...ref,
        child: table.name,
        cardinality: sameSet(primaryKey(table), ref.columns) ? 'one' : 'many',
      });
    }
  }
  const order = (e: TableRelation) => [e.parent, e.child, e.columns.join()].join('\u0000');
  return out.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Text for one Markdown table cell. */
const cell = (text: string | null) => (text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** A Markdown anchor for a heading of a relation name (GitHub's rule for plain lower-case names). */
const anchor = (name: string) => `#${name}`;

function mermaid(relations: readonly RelationInfo[], edges: readonly TableRelation[]): string[] {
  const lines = ['```mermaid', 'erDiagram'];
  const linked = new Set(edges.flatMap((e) => [e.child, e.parent]));
  for (const t of relations.filter((r) => r.kind === 'table' && linked.has(r.name))) {
    const key = naturalKey(t);
    const mark = key?.kind === 'primary key' ? 'PK' : 'UK';
    lines.push(`  ${t.name} {`);
    for (const c of t.columns.filter((col) => key?.columns.includes(col.name)))
      lines.push(`    ${c.type.replace(/[^a-z0-9]+/g, '_')} ${c.name} ${mark}`);
    lines.push('  }');
  }
  for (const e of edges) {
    lines.push(
      `  ${e.parent} ||--${e.cardinality === 'one' ? 'o|' : 'o{'} ${e.child} : "${e.columns.join(', ')}"`,
    );
  }
  lines.push('```');
  return lines;
}

function keyLines(r: RelationInfo, edges: readonly TableRelation[]): string[] {
  const lines = r.keys.map((k) => {
    const what = k.kind === 'primary key' ? 'Primary key' : 'Unique';
    return `- ${what}: (${k.columns.join(', ')})${k.where ? ` where ${k.where}` : ''}`;
  });
  for (const e of edges.filter((x) => x.child === r.name)) {
    const cols = e.columns.join(', ');
    lines.push(
      `- Refers to [${e.parent}](${anchor(e.parent)}) by (${cols})${sameSet(e.columns, e.parentColumns) ? '' : ` = (${e.parentColumns.join(', ')})`}`,
    );
  }
  return lines;
}

function section(r: RelationInfo, edges: readonly TableRelation[]): string[] {
  const lines = [`### ${r.name}`, '', cell(r.comment) || '(no comment)', ''];
  const keys = keyLines(r, edges);
  if (keys.length > 0) lines.push(...keys, '');
  // Views have no null column: Postgres says every view column is nullable.
  const table = r.kind === 'table';
  lines.push(`| column | type |${table ? ' null |' : ''} meaning |`, `|---|---|${table ? '---|' : ''}---|`);
  for (const c of r.columns) {
    const nullable = table ? ` ${c.nullable ? 'yes' : 'no'} |` : '';
    lines.push(`| \`${c.name}\` | ${cell(c.type)} |${nullable} ${cell(c.comment)} |`);
  }
  lines.push('');
  return lines;
}

/** What a complete answer's silence does to a row of the load's scope. */
const MISSING = { 'soft-delete': '`deleted_at`', delete: 'deleted', deactivate: '`active = false`' } as const;

/** The table of the resources and the tables each fills. */
function resourcesTable(resources: readonly ResourceSummary[]): string[] {
  const row = (r: ResourceSummary) => {
    const tables = r.tables.filter((s, i) => r.tables.findIndex((o) => o.table === s.table) === i);
    const filled = tables
      .map((s) => `[${s.table}](${anchor(s.table)}) (${s.missing ? MISSING[s.missing.mode] : 'kept'})`)
      .join(', ');
    return `| \`${r.name}\` | ${r.read} | ${r.endpoints.map((e) => `\`${e}\``).join(', ')} | ${filled} |`;
  };
  return [
    "| resource | read kind | endpoints | tables (a row of the load's scope missing from a complete answer) |",
    '|---|---|---|---|',
    ...resources.map(row),
  ];
}

/** The generated part of docs/warehouse.md: the resources, index, ER diagram (the relations their specs name), tables, views. */
export function renderDictionary(
  relations: readonly RelationInfo[],
  resources: readonly ResourceSummary[],
): string {
  const tables = relations.filter((r) => r.kind === 'table');
  const views = relations.filter((r) => r.kind === 'view');
  const edges = deriveRelations(
    relations,
    resources.flatMap((r) => r.tables),
  );
  const index = (list: readonly RelationInfo[]) =>
    list.map((r) => `[${r.name}](${anchor(r.name)})`).join(' · ');
  const lines = [
    '## Dictionary',
    '',
    `${tables.length} tables: ${index(tables)}.`,
    '',
    `${views.length} views: ${index(views)}.`,
    '',
    '### Resources',
    '',
    'Each resource (`src/resources/`, by the name `--resources` takes) reads its endpoints ' +
      "into its tables, in the order a backfill runs them. A row of the load's scope (the company; for `month` " +
      'and `day` reads its window, for `items` reads the items asked) that a complete answer no longer holds ' +
      'is kept, soft-deleted (`deleted_at`), deleted or deactivated (`active = false`):',
    '',
    ...resourcesTable(resources),
    '',
    '### How the tables relate',
    '',
    'Tables refer to each other by shared key columns (few of them are declared foreign keys, ' +
      'since rows arrive window by window in any order). Each line reads "one parent row has zero, ' +
      'one or many child rows", labelled with the child\'s columns:',
    '',
    ...mermaid(relations, edges),
    '',
    '## Tables',
    '',
    ...tables.flatMap((t) => section(t, edges)),
    '## Views',
    '',
    ...views.flatMap((v) => section(v, edges)),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The hand-written part of a docs/warehouse.md text: everything before {@link GENERATED_MARKER}. */
export function handWrittenPart(doc: string): string {
  const at = doc.indexOf(GENERATED_MARKER);
  if (at < 0)
    throw new Error(
      `docs/warehouse.md has no line ${GENERATED_MARKER}; put it where the generated dictionary starts`,
    );
  return doc.slice(0, at);
}

/** The whole page: the hand-written part, the marker, the generated dictionary. */
export function composeWarehouseDoc(
  handWritten: string,
  relations: readonly RelationInfo[],
  resources: readonly ResourceSummary[],
): string {
  return `${handWritten.trimEnd()}\n\n${GENERATED_MARKER}\n\n${renderDictionary(relations, resources)}`;
}

/** Each Postgres type's TypeScript type, as the warehouse pool (db.ts) reads it and a query writes it. */
const TS_TYPES: Readonly<Record<string, string>> = {
  bool: 'boolean',
  bytea: 'Uint8Array',
  date: 'string',
  float8: 'number',
  int4: 'number',
  int8: 'Int8',
  jsonb: 'Json',
  numeric: 'Numeric',
  text: 'string',
  time: 'string',
  timestamp: 'string',
  timestamptz: 'Timestamptz',
  _text: 'string[]',
  _time: 'string[]',
};

const TYPES_HEADER = `/**
 * The warehouse's tables and views as TypeScript types, for kysely: \`Kysely<Warehouse>\`
 * (docs/warehouse.md "From TypeScript"). GENERATED by \`npm run docs:warehouse\` from the
 * migrated schema: do not edit; change sql/ (a new migration) and regenerate.
 */
import type { ColumnType } from 'kysely';

/** A value of a jsonb column, as read. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** jsonb: read as its value, written as JSON text. */
export type Json = ColumnType<JsonValue, string, string>;
/** bigint: read as a number (the warehouse pool parses it so), written as a number, bigint or text. */
export type Int8 = ColumnType<number, number | bigint | string, number | bigint | string>;
/** numeric: read as text (no precision lost), written as a number or text. */
export type Numeric = ColumnType<string, number | string, number | string>;
/** timestamp with time zone: read as a Date, written as a Date or ISO 8601 text. */
export type Timestamptz = ColumnType<Date, Date | string, Date | string>;
/** A column an insert may leave out (it has a default). */
export type Generated<T> = T extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : ColumnType<T, T | undefined, T>;
/** A column Postgres computes (GENERATED ALWAYS): read only. */
export type GeneratedAlways<T> = T extends ColumnType<infer S, infer _I, infer _U> ? ColumnType<S, never, never> : ColumnType<T, never, never>;
`;

/** A comment as a one-line JSDoc, or nothing. */
function jsdoc(text: string | null, indent = ''): string[] {
  const line = (text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\*\//g, '*\\/')
    .trim();
  return line ? [`${indent}/** ${line} */`] : [];
}

function columnType(relation: string, c: ColumnInfo): string {
  const base = TS_TYPES[c.udt];
  if (!base)
    throw new Error(
      `${relation}.${c.name}: no TypeScript type for the Postgres type ${c.type}; add ${c.udt} to TS_TYPES of src/warehouse/dictionary.ts`,
    );
  const type = c.nullable ? `${base} | null` : base;
  return c.filled === 'generated'
    ? `GeneratedAlways<${type}>`
    : c.filled === 'default'
      ? `Generated<${type}>`
      : type;
}

const pascal = (name: string) =>
  name.replace(/(^|_)([a-z0-9])/g, (_, _sep: string, ch: string) => ch.toUpperCase());

/** The TypeScript module of src/warehouse/database.ts: one interface per table and view, and `Database` naming them. */
export function renderDatabaseTypes(relations: readonly RelationInfo[]): string {
  const lines = [TYPES_HEADER];
  for (const r of relations) {
    lines.push(
      ...jsdoc(`${r.kind === 'view' ? 'View' : 'Table'} ${r.name}: ${r.comment ?? ''}`),
      `export interface ${pascal(r.name)} {`,
    );
    for (const c of r.columns)
      lines.push(...jsdoc(c.comment, '  '), `  ${c.name}: ${columnType(r.name, c)};`);
    lines.push('}', '');
  }
  lines.push(
    '/** Every table and view of the warehouse schema, by name: the type `Kysely<>` takes. */',
    'export interface Database {',
  );
  for (const r of relations) lines.push(`  ${r.name}: ${pascal(r.name)};`);
  lines.push(
    '}',
    '',
    '/** {@link Database} under the name TypeScript users of the warehouse import (`punchline/warehouse`). */',
    'export type Warehouse = Database;',
    '',
  );
  return lines.join('\n');
}
