import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module of the command's launcher, without types
import { compiledCli } from '../bin/compiled.js';

/** A source tree of two modules, like the repository's src/ and jobs/. */
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'punchline-compiled-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'jobs'));
  writeFileSync(join(root, 'jobs', 'answer.ts'), 'export const answer: number = 41;\n');
  writeFileSync(
    join(root, 'src', 'cli.ts'),
    "import { answer } from '../jobs/answer.js';\nexport const value: number = answer + 1;\n",
  );
  return root;
}

const copies = (root: string) => readdirSync(join(root, 'node_modules', '.cache', 'punchline'));
const load = async (path: string) =>
  ((await import(`${pathToFileURL(path).href}?t=${Date.now()}`)) as { value: number }).value;

describe('the compiled copy the punchline command runs', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('is built once from the TypeScript sources and reused while they stay the same', async () => {
    const root = tree();
    roots.push(root);
    const cli = (await compiledCli(root)) as string;
    expect(existsSync(cli)).toBe(true);
    expect(await load(cli)).toBe(42);
    expect(await compiledCli(root)).toBe(cli);
    expect(copies(root)).toHaveLength(1);
  });

  it('is built again when a source changes, and the new copy runs the new code', async () => {
    const root = tree();
    roots.push(root);
    const before = (await compiledCli(root)) as string;
    writeFileSync(join(root, 'jobs', 'answer.ts'), 'export const answer: number = 99;\n');
    const after = (await compiledCli(root)) as string;
    expect(after).not.toBe(before);
    expect(await load(after)).toBe(100);
  });

  it('gives processes that start together one complete copy', async () => {
    const root = tree();
    roots.push(root);
    const paths = await Promise.all([1, 2, 3, 4].map(() => compiledCli(root)));
    expect(new Set(paths).size).toBe(1);
    expect(copies(root)).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/)]);
  });

  it('removes copies of older sources unused for a day, and keeps recent ones', async () => {
    const root = tree();
    roots.push(root);
    const old = (await compiledCli(root)) as string;
    const oldDir = join(old, '..', '..');
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(oldDir, dayAgo, dayAgo);
    writeFileSync(join(root, 'src', 'extra.ts'), 'export const x = 1;\n');
    const recent = (await compiledCli(root)) as string;
    writeFileSync(join(root, 'src', 'extra.ts'), 'export const x = 2;\n');
    await compiledCli(root);
    expect(existsSync(oldDir)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(copies(root)).toHaveLength(2);
  });
});
