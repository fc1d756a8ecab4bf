/**
 * The personal-data table of docs/privacy.md and docs/warehouse.md, rendered from
 * personal-data.ts, and its update in the pages (`npm run docs:privacy`; a test fails
 * when a committed page differs).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ColumnClass, TableClass } from '../resources/column-classes.js';
import { PERSONAL_DATA, pseudonymColumnName } from './personal-data.js';

/** The pages that hold the generated table, from the repository root. */
export const PRIVACY_DOC_PAGES = ['docs/privacy.md', 'docs/warehouse.md'] as const;

/** The markers around the generated block. */
export const PRIVACY_DOC_MARKERS = {
  start:
    '<!-- personal-data:start (generated from src/privacy/personal-data.ts by npm run docs:privacy; do not edit) -->',
  end: '<!-- personal-data:end -->',
} as const;

const code = (s: string) => `\`${s}\``;

function analystSees(cls: TableClass, column: string, c: ColumnClass): string {
  if (cls.excludedFromAnalysts !== undefined) return 'no (no analyst view)';
  if (c.analyst === 'pseudonym') return `pseudonym, as ${code(pseudonymColumnName(column))}`;
  return c.analyst === 'shown' ? 'yes' : 'no';
}

function forgetDoes(cls: TableClass, column: string, c: ColumnClass): string {
  const aboutPerson =
    cls.columns['cpf']?.analyst === 'pseudonym' || cls.person !== undefined || cls.cpfWithin !== undefined;
  if (!aboutPerson) return '—';
  if (cls.erase === 'delete') return 'row deleted';
  if (column === 'cpf') return 'replaced by the tombstone';
  return c.analyst === 'omitted' ? 'set to null' : 'kept';
}

/** The markdown table of every column holding personal data, by table, then the look-alikes. */
export function renderPersonalDataTable(): string {
  const personal = [
    '| Table | Column | Category | `workforce_reader` | `workforce_analyst` | `punchline forget` | Whose / what |',
    '|---|---|---|---|---|---|---|',
  ];
  const lookAlikes: string[] = [];
  for (const [table, cls] of Object.entries(PERSONAL_DATA).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [column, c] of Object.entries(cls.columns)) {
      if (c.category === null) {
        lookAlikes.push(`${code(`${table}.${column}`)} (${c.note ?? 'not personal'})`);
        continue;
      }
      personal.push(
        `| ${code(table)} | ${code(column)} | ${c.category.replace('_', ' ')} | ${c.ownerOnly ? 'no (owner only)' : 'yes'} | ` +
          `${analystSees(cls, column, c)} | ${forgetDoes(cls, column, c)} | ${c.note ?? ''} |`,
      );
    }
  }
  return [
    ...personal,
    '',
    `Columns whose name looks personal but which hold no personal data, shown to analysts: ${lookAlikes.join('; ')}.`,
  ].join('\n');
}

/** `page` with its generated block replaced by `block` (pure); throws when the markers are missing. */
export function withGeneratedBlock(page: string, block: string): string {
  const { start, end } = PRIVACY_DOC_MARKERS;
  const i = page.indexOf(start);
  const j = page.indexOf(end);
  if (i === -1 || j < i) throw new Error(`the page has no generated block (${start} … ${end})`);
  return `${page.slice(0, i)}${start}\n${block}\n${page.slice(j)}`;
}

/** Rewrites the generated block of the privacy page at `path`; true when it changed. */
export function updatePrivacyDoc(path: string): boolean {
  const page = readFileSync(path, 'utf8');
  const next = withGeneratedBlock(page, renderPersonalDataTable());
  if (next !== page) writeFileSync(path, next);
  return next !== page;
}
