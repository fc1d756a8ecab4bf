/**
 * The layers of docs/architecture.md "The parts" hold in the code: every import of src/
 * and jobs/ stays in its own part or goes to a part further down the table, and every
 * folder says once, at the top of its main file, what it is for.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The .ts files under `dir`, as repository paths. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

/** The paths of each row of the parts table, top row first. */
function partsTable(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## The parts'), doc.indexOf('## How data flows'));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| part '))
    .map((l) => [...l.split('|')[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

const PARTS = partsTable();
const FILES = [...sources('src'), ...sources('jobs')];

/** The row of `file`: the one naming it or its longest enclosing folder; -1 for none. */
function rowOf(file: string): number {
  let best = { row: -1, length: 0 };
  PARTS.forEach((paths, row) => {
    for (const p of paths)
      if ((file === p || (p.endsWith('/') && file.startsWith(p))) && p.length > best.length)
        best = { row, length: p.length };
  });
  return best.row;
}

describe('docs/architecture.md "The parts"', () => {
  it('places every file of src/ and jobs/ in a part', () => {
    expect(FILES.filter((f) => rowOf(f) < 0)).toEqual([]);
  });

  it('has every import run within its part or down the table, never up', () => {
    const up: string[] = [];
    for (const file of FILES) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts');
        if (rowOf(target) >= 0 && rowOf(target) < rowOf(file)) up.push(`${file} -> ${target}`);
      }
    }
    expect(up).toEqual([]);
  });

  it('has each folder say what it is for, once, at the top of one file', () => {
    const said = new Map<string, string[]>();
    for (const file of FILES) {
      const m = /^\/\*\*\n \* ((?:src\/[a-z-]+|jobs)\/) — /.exec(readFileSync(join(ROOT, file), 'utf8'));
      if (m) said.set(m[1]!, [...(said.get(m[1]!) ?? []), file]);
    }
    const folders = [
      ...new Set(
        FILES.filter((f) => f.split('/').length > (f.startsWith('jobs/') ? 1 : 2)).map(
          (f) =>
            f
              .split('/')
              .slice(0, f.startsWith('jobs/') ? 1 : 2)
              .join('/') + '/',
        ),
      ),
    ];
    expect(
      folders.filter((f) => said.get(f)?.length !== 1),
      'folders without exactly one purpose line',
    ).toEqual([]);
  });
});
