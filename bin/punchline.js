#!/usr/bin/env node
// Entry point of the `punchline` command: runs the TypeScript CLI through tsx's loader,
// or the compiled dist/ build when PUNCHLINE_DIST=1 (as in the Docker image).
if (process.env.PUNCHLINE_DIST === '1') {
  await import('../dist/src/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
