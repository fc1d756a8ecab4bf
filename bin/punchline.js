#!/usr/bin/env node
// Entry point of the `punchline` command. It runs a JavaScript copy of the TypeScript
// sources, transpiled by esbuild and cached until a source changes (bin/compiled.js);
// PUNCHLINE_DIST=1 runs the dist/ build of `npm run build` instead (the Docker image),
// and PUNCHLINE_DIST=0 the sources themselves through tsx's loader.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
