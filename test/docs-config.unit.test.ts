/**
 * docs/configuration.md lists exactly the environment variables punchline reads, each
 * with the default and the line of docs its entry in src/config.ts gives, and no page
 * names one that does not exist. The variables read are recorded by handing `loadConfig`
 * an environment that notes every name asked for, so a variable added to src/config.ts
 * without its line of docs (or removed while the docs keep it) fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, VARIABLES } from '../src/config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Every environment variable `loadConfig` looks at. */
function variablesRead(): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return asked;
}

/** Variables read outside src/config.ts: by bin/punchline.js and by the test and benchmark tools. */
const TOOL_VARIABLES = [
  'PUNCHLINE_DIST',
  'TEST_POSTGRES_URL',
  'TEST_DATABASE_URL',
  'TEST_REDIS_URL',
  'TEST_TOOL_PATH',
  'PUNCHLINE_TEST_TODAY',
];

/** Constants the code exports (`QUEUE_NAMES`): named in the docs, but no variables. */
function exportedConstants(dir = 'src'): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return exportedConstants(path);
    return name.endsWith('.ts')
      ? [...read(path).matchAll(/export const ([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!)
      : [];
  });
}

/** The rows of the table under `## Variables`: variable, default and meaning. */
function documentedRows(page: string): { variable: string; default: string; meaning: string }[] {
  const section = page.split(/^## /m).find((s) => s.startsWith('Variables'));
  if (!section) throw new Error('docs/configuration.md has no "Variables" section');
  return section
    .split('\n')
    .map((l) => /^\| `([A-Z][A-Z0-9_]+)` \| (.*?) \| (.*) \|$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ variable: m[1]!, default: m[2]!, meaning: m[3]! }));
}

describe('environment variables in the docs', () => {
  const read_ = variablesRead();
  const constants = exportedConstants();

  it('records what loadConfig reads (the check is not vacuous)', () => {
    expect(read_.has('DATABASE_URL')).toBe(true);
    expect(read_.has('SERVICE_API_TOKEN_FILE')).toBe(true);
  });

  it('docs/configuration.md lists every variable punchline reads, and only those', () => {
    const documented = documentedRows(read('docs/configuration.md')).map((r) => r.variable);
    expect(
      [...read_].filter((v) => !documented.includes(v)).sort(),
      'add these to docs/configuration.md',
    ).toEqual([]);
    expect(
      documented.filter((v) => !read_.has(v)).sort(),
      'these are no longer read by src/config.ts',
    ).toEqual([]);
  });

  it.each(PAGES)('%s names no variable that does not exist', (path) => {
    const known = new Set([...read_, ...TOOL_VARIABLES, ...constants]);
    const prefixes =
      /^(API|SERVICE|DATABASE|REDIS|QUEUE|OPS|NOTIFY|SYNC|SCHEDULES?|WAREHOUSE|WORKER|PUSH|PSEUDONYM|STORE|LOG|COMPANY|PUNCHLINE|TEST|OTEL)_[A-Z0-9_]+$/;
    const named = [...read(path).matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)]
      .map((m) => m[1]!)
      .filter((v) => prefixes.test(v));
    expect([...new Set(named.filter((v) => !known.has(v)))]).toEqual([]);
  });

  describe('each variable of src/config.ts', () => {
    const rows = new Map(documentedRows(read('docs/configuration.md')).map((r) => [r.variable, r]));
    const expected = VARIABLES.flatMap((s) => [
      { variable: s.env, default: s.default === undefined ? 'none' : `\`${s.default}\``, doc: s.doc },
      ...(s.file
        ? [{ variable: `${s.env}_FILE`, default: 'none', doc: `Path of a file holding \`${s.env}\`` }]
        : []),
    ]);

    it.each(expected)(
      '$variable: docs/configuration.md gives its default and starts its meaning with its doc',
      ({ variable, default: value, doc }) => {
        const row = rows.get(variable);
        expect(
          row?.default.startsWith(value),
          `docs/configuration.md: the default of ${variable} is ${value}`,
        ).toBe(true);
        expect(
          row?.meaning.startsWith(doc),
          `docs/configuration.md: the meaning of ${variable} starts with: ${doc}`,
        ).toBe(true);
      },
    );
  });
});
