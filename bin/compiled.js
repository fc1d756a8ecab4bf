// Development only (not in the published package, whose command runs dist/): in a
// checkout of the repository the `punchline` command runs a JavaScript copy of the
// TypeScript sources instead of compiling them in the process (tsx): the copy starts in
// half the time and leaves out tsx's loader thread, about 50 MB of resident memory. The copy lives in
// node_modules/.cache/punchline/<fingerprint>/, where the fingerprint names every source
// file with its size and modification time, so an edited file gets a fresh copy at the
// next start (esbuild transpiles the ~200 files in well under a second). Processes that
// start together each build into their own folder and keep whichever is renamed first.
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';

const SOURCE_DIRS = ['src', 'jobs'];
/** Copies of other fingerprints older than this are removed (a process may still be running one). */
const KEEP_OLD_MS = 24 * 3600 * 1000;

/** Every `.ts` file under `dir`, recursively. */
function sources(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The path of the compiled `src/cli.js` for the sources under `root`, building it when
 * the sources changed; undefined when it cannot be built (the caller falls back to tsx).
 */
export async function compiledCli(root) {
  const files = SOURCE_DIRS.flatMap((d) => sources(join(root, d))).sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const s = statSync(file);
    hash.update(`${relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  const cache = join(root, 'node_modules', '.cache', 'punchline');
  const target = join(cache, hash.digest('hex').slice(0, 16));
  const cli = join(target, 'src', 'cli.js');
  if (existsSync(join(target, '.complete'))) {
    touch(target);
    return cli;
  }

  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const scratch = `${target}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  await esbuild.build({
    entryPoints: files,
    outdir: scratch,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  writeFileSync(join(scratch, '.complete'), `${new Date().toISOString()}\n`);
  try {
    renameSync(scratch, target);
  } catch {
    // Another process got there first with the same sources.
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(join(target, '.complete'))) return undefined;
  }
  prune(cache, target);
  return cli;
}

/** Marks a copy as used now (copies unused for a day are pruned). */
function touch(dir) {
  try {
    const now = new Date();
    utimesSync(dir, now, now);
  } catch {
    // Best effort.
  }
}

/** Removes copies of earlier sources that nobody has started for a day. */
function prune(cache, keep) {
  const now = Date.now();
  try {
    for (const name of readdirSync(cache)) {
      const path = join(cache, name);
      if (path !== keep && now - statSync(path).mtimeMs > KEEP_OLD_MS)
        rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // Best effort: a copy left behind costs only disk space.
  }
}
