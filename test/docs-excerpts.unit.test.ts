/**
 * The docs show the code as it is. A fenced block right after a marker
 * `<!-- excerpt: path -->` must appear in that file line for line (its indentation may
 * differ as a whole), so docs/adding-a-resource.md cannot drift from the declaration it
 * walks through. And every resource of the catalog has its row in the generated resources
 * table, where the other docs send the reader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../src/resources/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** One excerpt: the file it claims to come from and its lines, as written in the page. */
interface Excerpt {
  readonly page: string;
  readonly line: number;
  readonly file: string;
  readonly lines: string[];
}

/** The excerpts of a page: each marker on a line of its own and the fenced block that follows it (blank lines between allowed). */
function excerptsOf(page: string, text: string): Excerpt[] {
  const lines = text.split('\n');
  const out: Excerpt[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^\s*<!--\s*excerpt:\s*(\S+)\s*-->\s*$/.exec(lines[i]!);
    if (!marker) continue;
    let open = i + 1;
    while (open < lines.length && lines[open]!.trim() === '') open++;
    const fence = /^(\s*)(```|~~~)/.exec(lines[open] ?? '');
    if (!fence)
      throw new Error(`${page}:${i + 1}: an excerpt marker must be followed by a fenced code block`);
    const body: string[] = [];
    let close = open + 1;
    while (close < lines.length && !lines[close]!.trimStart().startsWith(fence[2]!))
      body.push(lines[close++]!);
    if (close >= lines.length) throw new Error(`${page}:${open + 1}: unclosed code block`);
    out.push({ page, line: i + 1, file: marker[1]!, lines: body });
  }
  return out;
}

/** The lines without their common leading whitespace. */
function dedent(lines: readonly string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(cut)));
}

/** True when `file` holds `excerpt` as consecutive lines, every line shifted by the same indentation. */
function holds(file: string, excerpt: readonly string[]): boolean {
  const want = dedent(excerpt);
  const have = file.split('\n');
  if (want.length === 0) return false;
  for (let i = 0; i + want.length <= have.length; i++) {
    const first = have[i]!;
    if (!first.endsWith(want[0]!)) continue;
    const indent = first.slice(0, first.length - want[0]!.length);
    if (indent.trim() !== '') continue;
    if (want.every((w, k) => (w === '' ? have[i + k]!.trim() === '' : have[i + k] === indent + w)))
      return true;
  }
  return false;
}

describe('excerpts of code in the docs', () => {
  const excerpts = PAGES.flatMap((page) => excerptsOf(page, read(page)));

  it('finds the excerpts of docs/adding-a-resource.md', () => {
    expect(excerpts.filter((e) => e.page === 'docs/adding-a-resource.md').length).toBeGreaterThan(8);
  });

  it('tells a shifted or edited excerpt apart', () => {
    const file = 'a\n  b: 1,\n  c: 2,\nd';
    expect(holds(file, ['b: 1,', 'c: 2,'])).toBe(true);
    expect(holds(file, ['    b: 1,', '    c: 2,'])).toBe(true);
    expect(holds(file, ['b: 1,', '  c: 2,'])).toBe(false);
    expect(holds(file, ['b: 1,', 'c: 3,'])).toBe(false);
  });

  it.each(excerpts.map((e) => [`${e.page}:${e.line} ${e.file}`, e] as const))(
    '%s is the code as it is',
    (_name, e) => {
      expect(
        holds(read(e.file), e.lines),
        `${e.page}:${e.line}: this excerpt no longer matches ${e.file}; copy it again`,
      ).toBe(true);
    },
  );
});

describe('the resource lists of the docs', () => {
  it('docs/warehouse.md has a row for every resource of the catalog (src/resources/index.ts)', () => {
    const page = read('docs/warehouse.md');
    const missing = RESOURCES.filter((r) => !page.split('\n').some((l) => l.startsWith(`| \`${r}\` |`)));
    expect(missing, 'regenerate the resources table of docs/warehouse.md (npm run docs:warehouse)').toEqual(
      [],
    );
  });

  it('docs/operations.md sends --resources to that table', () => {
    const row = read('docs/operations.md')
      .split('\n')
      .find((l) => l.startsWith('| `--resources'));
    expect(row).toContain('(warehouse.md#resources)');
  });
});
