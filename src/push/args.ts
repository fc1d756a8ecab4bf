/**
 * The arguments of `punchline push`, checked before any work: a problem is a {@link UsageError}
 * (one line, exit 2) and nothing is read from the API or written.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { selectConnections, type Config, type Connection } from '../config.js';
import { UsageError } from '../util/usage-error.js';
import { inputFormatOf } from './input.js';
import { PUSH_KINDS, isPushKind, type PushKind } from './kind-names.js';
import { reportFormatOf } from './report.js';

/** Options as commander passes them (`progress` false with `--no-progress`). */
export type PushArgs = Partial<Record<'file' | 'report' | 'filesDir' | 'connection', string>> &
  Partial<Record<'apply' | 'progress' | 'allowHidden', boolean>>;

/** Checked options of a push. */
export interface PushOptions {
  readonly kind: PushKind;
  /** Input file as given. */
  readonly file: string;
  /** Write (otherwise plan). */
  readonly apply: boolean;
  readonly report?: string;
  /** The folder file columns are read from (the input file's folder without `--files-dir`). */
  readonly filesDir: string;
  /** Read files and folders whose names start with "." too (`--allow-hidden`). */
  readonly allowHidden: boolean;
  /** The connection whose token's company receives the writes. */
  readonly connection: Connection;
  /** Show progress (a bar on a TTY). */
  readonly progress: boolean;
}

/** True when `path` can be stat'ed and is a file (`isFile`) or a directory (`isDirectory`). */
function statIs(path: string, is: 'isFile' | 'isDirectory'): boolean {
  try {
    return statSync(path)[is]();
  } catch {
    return false;
  }
}

/** Checks the arguments of `punchline push`; throws {@link UsageError} or ConfigError. */
export function parsePushArgs(kind: string, args: PushArgs, config: Config): PushOptions {
  if (!isPushKind(kind))
    throw new UsageError(`unknown kind "${kind}" (choose from: ${PUSH_KINDS.join(', ')})`);
  const file = args.file;
  if (!file) throw new UsageError('--file is required (a .csv or .jsonl file)');
  if (!inputFormatOf(file)) throw new UsageError(`--file ${file}: use a .csv or .jsonl file`);
  if (!statIs(file, 'isFile')) throw new UsageError(`--file ${file}: no such file`);
  if (args.report !== undefined) {
    if (!reportFormatOf(args.report))
      throw new UsageError(`--report ${args.report}: use a .csv or .json file name`);
    if (!statIs(dirname(resolve(args.report)), 'isDirectory'))
      throw new UsageError(`--report ${args.report}: its directory does not exist`);
    if (resolve(args.report) === resolve(file)) throw new UsageError('--report must not overwrite --file');
  }
  if (args.filesDir !== undefined && !statIs(args.filesDir, 'isDirectory'))
    throw new UsageError(`--files-dir ${args.filesDir}: no such directory`);
  const connections = selectConnections(config, args.connection);
  if (connections.length > 1) {
    throw new UsageError(
      `several connections are configured (${connections.map((c) => c.name).join(', ')}): name the one to write with --connection`,
    );
  }
  return {
    kind,
    file,
    apply: args.apply === true,
    ...(args.report !== undefined ? { report: args.report } : {}),
    filesDir: resolve(args.filesDir ?? dirname(file)),
    allowHidden: args.allowHidden === true,
    connection: connections[0]!,
    progress: args.progress !== false,
  };
}
