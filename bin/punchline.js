#!/usr/bin/env node
// Entry point of the `punchline` command. It runs a JavaScript copy of the TypeScript
// sources, transpiled by esbuild and cached until a source changes (bin/compiled.js);
// PUNCHLINE_DIST=1 runs the dist/ build of `npm run build` instead (the Docker image),
// and PUNCHLINE_DIST=0 the sources themselves through tsx's loader.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// A sync allocates hundreds of megabytes a minute that die young, and V8's default
// heuristics let the old generation grow to several times its live size between
// collections: a backfill whose live heap is ~30 MB would hold ~100 MB. A fixed, modest
// growth factor keeps the resident set near the live size for a little more collection
// work (docs/operations.md "Backfill"). The flag only tunes when the next full collection
// runs, so it is safe to set at run time; `node --heap-growing-percent=N` overrides it.
const HEAP_GROWING_PERCENT = 60;
if (!process.execArgv.some((a) => a.includes('heap-growing-percent'))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.env.PUNCHLINE_DIST;
const compiled = mode === '1' ? join(root, 'dist', 'src', 'cli.js') : mode === '0' ? undefined : await import('./compiled.js').then((m) => m.compiledCli(root)).catch(() => undefined);
if (compiled) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
