/**
 * Tools from Debian packages that a few tests need beyond Node, Postgres and Redis:
 * chromium (the dashboard in a real browser), promtool and prometheus (the alert rules,
 * a real Prometheus), docker-compose (the compose file without an engine). On a machine
 * without one, its tests skip with one visible line naming the package that would run
 * them; when `CI` is set (.ci/run installs them all) a missing tool fails them instead.
 * `TEST_TOOL_PATH` (directories, like PATH) replaces PATH for the search, so a run can
 * pretend a tool is missing.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** Each tool's Debian package. */
export const DEBIAN_TOOLS = {
  chromium: 'chromium',
  promtool: 'prometheus',
  prometheus: 'prometheus',
  'docker-compose': 'docker-compose',
} as const;

/** A command some tests need. */
export type DebianToolName = keyof typeof DEBIAN_TOOLS;

/** What a test file knows about a tool it needs. */
export interface DebianTool {
  /** The command, e.g. `promtool`. */
  readonly name: DebianToolName;
  /** Its absolute path, or undefined when it is not installed. */
  readonly path: string | undefined;
  /** True when the tests that need it skip: it is missing and `CI` is not set. */
  readonly skip: boolean;
  /** The one line that says what is missing, e.g. `skipped: needs Debian package chromium (apt-get install chromium)`. */
  readonly reason: string;
  /** The path; throws the one line when the tool is missing (under `CI` its tests are mandatory). */
  need(): string;
}

/** Whether `env` says this is a CI run (`CI` set to anything but empty, `0` or `false`). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

/** The executable `name` in the directories of `TEST_TOOL_PATH` (or PATH), or undefined. */
export function findTool(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.TEST_TOOL_PATH ?? env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d));
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** The line a missing tool's tests print: which package would run them, and how to get it. */
export function missingToolLine(name: DebianToolName): string {
  const pkg = DEBIAN_TOOLS[name];
  const what = pkg === name ? `Debian package ${pkg}` : `${name} of Debian package ${pkg}`;
  return `skipped: needs ${what} (apt-get install ${pkg})`;
}

/**
 * The tool `name` for the tests of one file. When it is missing and `CI` is not set, the
 * one line is printed once (vitest shows it under the file) and `skip` is true.
 */
export function debianTool(
  name: DebianToolName,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = console.warn,
): DebianTool {
  const path = findTool(name, env);
  const reason = missingToolLine(name);
  const skip = path === undefined && !isCi(env);
  if (skip) warn(reason);
  return {
    name,
    path,
    skip,
    reason,
    need() {
      if (path !== undefined) return path;
      throw new Error(
        `${name} is missing: ${reason.replace(/^skipped: needs /, 'its tests need ')}${isCi(env) ? '; CI is set, so they are mandatory' : ''}`,
      );
    },
  };
}
