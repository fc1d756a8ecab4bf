/**
 * The docs point at things that exist: every repository path a page names in backticks
 * (`src/load/load-resource.ts`, `jobs/*.ts`), every relative link and its `#anchor`, and
 * every doc section a code comment cites (`docs/architecture.md "The request budget"`).
 * Code moves faster than prose; this is what keeps a rename from leaving the docs behind.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The pages checked: README.md, docs/*.md and bench/README.md. */
const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Where code comments cite docs (`docs/x.md "Section"`). */
const CODE_DIRS = ['src', 'jobs', 'sql', 'test', 'scripts', 'bench', 'deploy', 'bin'];
const CODE_FILES = ['Dockerfile', 'docker-compose.yml', '.ci/run'];

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every file under `dir` (repository-relative), skipping generated and installed trees. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(join(ROOT, d))) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.git')) continue;
      const p = `${d}/${name}`;
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The page without its fenced code blocks' fences tracked: which lines are code. */
function splitFences(text: string): { line: string; code: boolean }[] {
  let inFence = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return { line, code: true };
    }
    return { line, code: inFence };
  });
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a page as written (markdown kept) and their anchors (duplicates numbered). */
function headingsOf(path: string): { text: string; plain: string; slug: string }[] {
  const seen = new Map<string, number>();
  return splitFences(read(path))
    .filter((l) => !l.code && /^#{1,6} /.test(l.line))
    .map((l) => {
      const text = l.line.replace(/^#{1,6} /, '').trim();
      const base = slugOf(text);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      return { text, plain: text.replace(/`/g, ''), slug: n === 0 ? base : `${base}-${n}` };
    });
}

const TOP = ['src', 'jobs', 'sql', 'test', 'scripts', 'bench', 'docs', 'deploy', 'bin', '.ci'];
const ROOT_FILES = [
  'README.md',
  'LICENSE',
  'package.json',
  'package-lock.json',
  'Dockerfile',
  'docker-compose.yml',
  'tsconfig.json',
  'tsconfig.build.json',
  'vitest.config.ts',
  'eslint.config.js',
];

/** The repository paths a piece of text names: tokens under a top-level folder, or a root file. */
function repoPathsIn(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[\s`'"(),;=]+/)) {
    // Trailing punctuation, a line (`:12`) or an anchor is not part of the path.
    const token = raw
      .replace(/[.:]+$/, '')
      .replace(/#.*$/, '')
      .replace(/:\d+$/, '')
      .replace(/^\.\//, '');
    if (token === '' || /[<>…{}$]|NNN/.test(token)) continue; // placeholders such as sql/NNN_name.sql
    const top = token.split('/')[0]!;
    if ((TOP.includes(top) && token.includes('/')) || ROOT_FILES.includes(token)) out.push(token);
  }
  return out;
}

/** True when `path` exists, or (with `*`) matches at least one file. */
function exists(path: string, files: () => string[]): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const re = new RegExp(
    `^${path
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '(.*/)?')
      .replace(/\*/g, '[^/]*')}$`,
  );
  return files().some((f) => re.test(f));
}

describe('the docs name files that exist', () => {
  let all: string[] | undefined;
  const files = () => (all ??= TOP.filter((d) => existsSync(join(ROOT, d))).flatMap(filesUnder));

  it.each(PAGES)('%s: every repository path in backticks exists', (page) => {
    const missing: string[] = [];
    for (const { line } of splitFences(read(page))) {
      // Inline code spans, and the whole line inside code blocks (commands name paths too).
      const spans = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      for (const text of line.includes('`') ? spans : [line]) {
        for (const path of repoPathsIn(text)) if (!exists(path, files)) missing.push(path);
      }
    }
    expect([...new Set(missing)], `${page} names paths that do not exist`).toEqual([]);
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const broken: string[] = [];
    for (const { line, code } of splitFences(read(page))) {
      if (code) continue;
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const path = file === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), file));
        if (!existsSync(join(ROOT, path))) {
          broken.push(target);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && !headingsOf(path).some((h) => h.slug === anchor))
          broken.push(target);
      }
    }
    expect(broken, `${page} links to files or anchors that do not exist`).toEqual([]);
  });
});

describe('code comments cite doc sections that exist', () => {
  const self = relative(ROOT, fileURLToPath(import.meta.url));
  const sources = [
    ...CODE_DIRS.flatMap((d) => (existsSync(join(ROOT, d)) ? filesUnder(d) : [])),
    ...CODE_FILES,
  ].filter((f) => f !== self && /\.(ts|mjs|js|sql|yml|yaml)$|Dockerfile$|\.ci\/run$/.test(f));

  it('every cited page exists and has the cited section', () => {
    const problems: string[] = [];
    let citations = 0;
    for (const file of sources) {
      for (const m of read(file).matchAll(/docs\/([\w-]+\.md)(?:,? "([^"]+)")?/g)) {
        citations += 1;
        const page = `docs/${m[1]}`;
        if (!existsSync(join(ROOT, page))) {
          problems.push(`${file}: ${page} does not exist`);
          continue;
        }
        const section = m[2];
        // A citation names a heading by its beginning: "First run" for "First run: `npm run demo`".
        if (section !== undefined && !headingsOf(page).some((h) => h.plain.startsWith(section)))
          problems.push(`${file}: ${page} has no section "${section}"`);
      }
    }
    expect(citations, 'the check found no citation at all').toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });
});
