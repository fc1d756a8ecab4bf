/**
 * The "Example questions" of docs/warehouse.md, as the benchmark times them and the docs
 * test runs them: every SQL block that follows an `<!-- example-question: name -->`
 * marker, with the docs' schema (`workforce.`) replaced by the one to ask.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One question: its name in the marker and its SQL. */
export interface ExampleQuestion {
  readonly name: string;
  readonly sql: string;
}

const MARKER = /<!-- example-question: ([^>]+?) -->\s*```sql\n([\s\S]*?)```/g;

/** The questions of a page (pure), asked of `schema`. */
export function exampleQuestions(markdown: string, schema: string): ExampleQuestion[] {
  const quoted = `"${schema.replace(/"/g, '""')}".`;
  return [...markdown.matchAll(MARKER)].map((m) => ({ name: m[1]!.trim(), sql: m[2]!.replaceAll('workforce.', quoted).trim() }));
}

/** The questions of docs/warehouse.md, asked of `schema`. */
export function warehouseDocQuestions(schema: string): ExampleQuestion[] {
  return exampleQuestions(readFileSync(fileURLToPath(new URL('../docs/warehouse.md', import.meta.url)), 'utf8'), schema);
}
