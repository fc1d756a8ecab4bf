#!/usr/bin/env node
// Entry point of the `punchline` command. An installed package (npm, the Docker image)
// holds no TypeScript and runs the compiled dist/ of `npm run build`. In a checkout of
// the repository (development, tests, `npm run demo`) it runs the sources instead: a
// JavaScript copy transpiled by esbuild and cached until a source changes
// (bin/compiled.js, development only); there PUNCHLINE_DIST=1 runs dist/ as an installed
// package does, and PUNCHLINE_DIST=0 the sources through tsx's loader.
import { existsSync } from 'node:fs';
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
const dist = join(root, 'dist', 'src', 'cli.js');
const checkout = existsSync(join(root, 'src', 'cli.ts'));
const mode = process.env.PUNCHLINE_DIST;

if (!checkout || mode === '1') {
  if (!existsSync(dist)) {
    process.stderr.write(`punchline: ${dist} is missing (run \`npm run build\` in ${root})\n`);
    process.exit(2);
  }
  await import(pathToFileURL(dist).href);
} else {
  const compiled =
    mode === '0'
      ? undefined
      : await import('./compiled.js').then((m) => m.compiledCli(root)).catch(() => undefined);
  if (compiled) {
    await import(pathToFileURL(compiled).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import('../src/cli.ts');
  }
}
