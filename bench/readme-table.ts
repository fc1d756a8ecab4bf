/**
 * Keeps the figures in bench/README.md current: the block between a mode's markers is
 * replaced, the rest of the page (the analysis written by people) is left alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { BenchMode } from './options.js';

/** The markers around a mode's block. */
export function markers(mode: BenchMode): { start: string; end: string } {
  return { start: `<!-- bench:${mode}:start -->`, end: `<!-- bench:${mode}:end -->` };
}

/** `page` with the block of `mode` replaced by `block` (pure); appended when the markers are missing. */
export function replaceBlock(page: string, mode: BenchMode, block: string): string {
  const { start, end } = markers(mode);
  const i = page.indexOf(start);
  const j = page.indexOf(end);
  const wrapped = `${start}\n${block.trim()}\n${end}`;
  if (i === -1 || j === -1 || j < i) return `${page.trimEnd()}\n\n${wrapped}\n`;
  return `${page.slice(0, i)}${wrapped}${page.slice(j + end.length)}`;
}

/** Rewrites the block of `mode` in the README at `path`. */
export function updateReadme(path: string, mode: BenchMode, block: string): void {
  writeFileSync(path, replaceBlock(readFileSync(path, 'utf8'), mode, block));
}
