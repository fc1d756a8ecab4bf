/**
 * Where punchline's own package lives, and its version: found by walking up from this
 * module to the `package.json` named `punchline`, so it works from the sources
 * (`src/`), from the compiled `dist/src/`, from the command's development copy under
 * `node_modules/.cache/` and from an installed package (`node_modules/punchline/`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `name` of punchline's package.json. */
const PACKAGE_NAME = 'punchline';

/** The name and version of the package.json in `dir`, or undefined when there is none or it cannot be read. */
function manifestIn(dir: string): { name?: unknown; version?: unknown } | undefined {
  const path = join(dir, 'package.json');
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

/** The folder of punchline's package.json above `from` (default: this module's folder). */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (manifestIn(dir)?.name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir)
      throw new Error(`cannot find the package.json of ${PACKAGE_NAME} above ${from}`);
  }
}

/** punchline's version, from its package.json (`punchline --version`). */
export function packageVersion(root: string = packageRoot()): string {
  const version = manifestIn(root)?.version;
  if (typeof version !== 'string') throw new Error(`the package.json in ${root} has no version`);
  return version;
}
