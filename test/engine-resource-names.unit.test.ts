import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CATALOG, RESOURCES } from '../src/resources/index.js';
import { MART_INPUTS } from '../src/marts/inputs.js';

// Issue 26: everything punchline knows about a resource is in its declaration
// (src/resources/), so the engine's code never names one.

const ROOT = join(import.meta.dirname, '..');

/** The engine: the sync, ops, quality, warehouse, privacy, migrations and marts folders, and the job processors. */
const ENGINE = [
  ...['plan', 'runtime', 'load', 'connections', 'backfill'],
  ...['reports', 'http', 'telemetry', 'alerts', 'demo', 'probes'],
  ...['quality', 'warehouse', 'privacy', 'migrations', 'marts'],
]
  .map((d) => `src/${d}`)
  .concat('jobs');

/**
 * Names the marts also give a column of their own: `absence_types`, the type names of a
 * day's absences in employee_daily and daily_attendance, is not the lookup table there.
 */
const MART_COLUMNS = new Set(['absence_types']);

/** The resource names and the names of the tables their declarations write. */
const NAMES = [
  ...new Set([
    ...RESOURCES,
    ...RESOURCES.flatMap((r) => Object.values(CATALOG[r].tables).map((t) => t.table)),
  ]),
];
/** The names looked for in src/marts/. */
const MART_NAMES = NAMES.filter((n) => !MART_COLUMNS.has(n));

/** Where a name is a name in use in a larger text: qualified, quoted, joined to a key, or after an SQL keyword. */
const inCode = (name: string) =>
  new RegExp(`([.:'"]|\\b(from|join|into|update|table)\\s+)${name}\\b|\\b${name}\\.\\w`, 'i');

/** The singular of an English plural (`companies` → `company`). */
const singular = (word: string) =>
  word
    .replace(/ies$/, 'y')
    .replace(/(ch|sh|s|x)es$/, '$1')
    .replace(/s$/, '');

/**
 * Whether a literal that is exactly a name is display text: next to its own singular (a
 * plural form), or in a row of labels of which one has several words (table headings).
 */
function isDisplayText(node: ts.Node, text: string): boolean {
  const parent = node.parent;
  const siblings = ts.isCallExpression(parent)
    ? parent.arguments
    : ts.isArrayLiteralExpression(parent)
      ? parent.elements
      : undefined;
  const words = (siblings ?? [])
    .filter((n) => n !== node && ts.isStringLiteral(n))
    .map((n) => (n as ts.StringLiteral).text);
  return (
    words.includes(singular(text)) || (ts.isArrayLiteralExpression(parent) && words.some((w) => /\s/.test(w)))
  );
}

/** True for the module name of an import or export: a file, not a name in use. */
function isModuleName(node: ts.Node): boolean {
  const p = node.parent;
  return (
    ts.isImportDeclaration(p) ||
    ts.isExportDeclaration(p) ||
    ts.isExternalModuleReference(p) ||
    (ts.isCallExpression(p) && p.expression.kind === ts.SyntaxKind.ImportKeyword)
  );
}

/**
 * The names a source's string literals and template text use (comments are not code):
 * a name with an underscore wherever it is a word; another name when it is the whole
 * literal (but display text) or {@link inCode} — "the companies' time zones" is English.
 */
export function namesUsed(file: string, source: string, names: readonly string[] = NAMES): string[] {
  const patterns = names.map(
    (name) => [name, name.includes('_') ? new RegExp(`\\b${name}\\b`) : inCode(name)] as const,
  );
  const found: string[] = [];
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateLiteralToken(node)) &&
      !isModuleName(node)
    ) {
      const text = node.text;
      for (const [name, inText] of patterns) {
        const hit = text === name ? name.includes('_') || !isDisplayText(node, text) : inText.test(text);
        if (hit)
          found.push(
            `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${name} in ${JSON.stringify(text.slice(0, 80))}`,
          );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sourcesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return path.endsWith('.ts') ? [path] : [];
  return readdirSync(path).flatMap((entry) => sourcesUnder(join(path, entry)));
}

const scan = (file: string) => {
  const path = relative(ROOT, file);
  return namesUsed(path, readFileSync(file, 'utf8'), path.startsWith('src/marts/') ? MART_NAMES : NAMES);
};

/** The marts' declaration of their inputs: the one engine file that names resource tables, each checked below. */
const MART_INPUTS_FILE = join(ROOT, 'src/marts/inputs.ts');

describe('the engine', () => {
  it('names no resource and no table of one: what it needs comes from the declarations', () => {
    const files = ENGINE.flatMap((d) => sourcesUnder(join(ROOT, d))).filter((f) => f !== MART_INPUTS_FILE);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(scan)).toEqual([]);
  });
});

describe("the marts' inputs", () => {
  it('are tables the resource declarations write', () => {
    const written = new Set(
      RESOURCES.flatMap((r) => [
        ...Object.values(CATALOG[r].tables).map((t) => t.table),
        ...Object.keys(CATALOG[r].privacy ?? {}),
      ]),
    );
    expect(Object.values(MART_INPUTS).filter((t) => !written.has(t))).toEqual([]);
  });
});

describe('the guard', () => {
  it('finds names in job data, SQL and spans, and leaves English, headings and module names alone', () => {
    const source = [
      "import { x } from './seen-collaborators.js';",
      "const items = [{ resource: 'companies' }, { resource: 'hour_bank' }];",
      'const q = `SELECT cpf FROM ${s}.collaborators c JOIN punches p USING (cpf)`;',
      "const span = 'merge:absences';",
      "const help = 'Never synced, while other companies have this resource.';",
      "const label = plural(n, 'company', 'companies');",
      "const head = ['resource', 'companies', 'oldest record'];",
      '// the punches table',
    ].join('\n');
    expect(namesUsed('x.ts', source).map((f) => f.replace(/ in .*/, ''))).toEqual([
      'x.ts:2: companies',
      'x.ts:2: hour_bank',
      'x.ts:3: collaborators',
      'x.ts:3: punches',
      'x.ts:4: absences',
    ]);
  });
});
