/**
 * Files named by input rows (attachments, face photos): found inside the files folder (the input's
 * folder, or `--files-dir`) and nowhere else, checked while the rows are validated, read only when
 * writing. A row is data from whoever wrote the file: a path leading out of the folder (`/etc/passwd`,
 * `../../secrets`, `~/.ssh/id_rsa`, a symbolic link elsewhere) makes its row invalid and is never read.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RowInvalid } from './row-invalid.js';

/** A file checked before the run writes anything. */
export interface PreparedFile {
  /** Absolute path, symbolic links resolved: inside the files folder. */
  readonly path: string;
  /** File name sent to the API. */
  readonly name: string;
  /** Size in bytes when checked. */
  readonly size: number;
  /** SHA-256 of the content when checked (hex). */
  readonly sha256: string;
  /** MIME type, from the extension (or the image signature). */
  readonly mimeType: string;
}

/** What a column's files must be. */
export interface FileRule {
  readonly maxBytes: number;
  /** `image`: JPEG or PNG only (spec 4.2 photo). */
  readonly accept?: 'image';
  /** Read a file or folder whose name starts with "." too (`--allow-hidden`). */
  readonly allowHidden?: boolean;
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.txt': 'text/plain',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The MIME type of an image by its first bytes (JPEG or PNG), or undefined. */
export function imageType(head: Uint8Array): 'image/jpeg' | 'image/png' | undefined {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  return png.every((b, i) => head[i] === b) ? 'image/png' : undefined;
}

/** `1.5 MiB`, `300 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${n} bytes`;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The first `bytes` bytes of the file at `path` (fewer when it is shorter). */
export async function headOf(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** True when `path` is `folder` or lies under it (both absolute and normalised). */
function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

const OUTSIDE_HINT = "file columns name files inside the input file's folder, or inside --files-dir";

/** Why a file system call on a file failed, for a row's message. */
function unreadable(err: NodeJS.ErrnoException): string {
  return `cannot be read (${err.code ?? err.message})`;
}

/** Where `given` lies inside `filesDir`, links resolved; {@link RowInvalid} when it leads elsewhere. */
async function locate(filesDir: string, column: string, given: string): Promise<string> {
  if (given.includes('\0')) throw new RowInvalid(`${column}: the path holds a NUL character`);
  if (given.startsWith('~'))
    throw new RowInvalid(`${column}: ${given} starts with ~, which is not expanded (${OUTSIDE_HINT})`);
  if (isAbsolute(given)) throw new RowInvalid(`${column}: ${given} is an absolute path (${OUTSIDE_HINT})`);
  const folder = resolve(filesDir);
  const path = resolve(folder, given);
  if (!isInside(folder, path))
    throw new RowInvalid(`${column}: ${given} is outside the files folder (${OUTSIDE_HINT})`);
  const real = await realpath(path).catch((err: NodeJS.ErrnoException) => {
    const why = err.code === 'ENOENT' ? 'does not exist' : unreadable(err);
    throw new RowInvalid(`${column}: ${given} ${why} (paths are relative to the files folder)`);
  });
  if (!isInside(await realpath(folder), real)) {
    throw new RowInvalid(
      `${column}: ${given} is a link to a file outside the files folder (${OUTSIDE_HINT})`,
    );
  }
  return real;
}

/**
 * Checks the file `given` of `column`, relative to `filesDir`: inside it (links resolved), a regular
 * file within `rule.maxBytes`, an image if the rule says so; else {@link RowInvalid} naming the problem.
 */
export async function prepareFile(
  filesDir: string,
  column: string,
  given: string,
  rule: FileRule,
): Promise<PreparedFile> {
  const path = await locate(filesDir, column, given);
  // A hidden file or folder (.ssh/id_rsa, .env) is no attachment, unless asked: by the path
  // as given and as resolved, so a link cannot hide it either.
  const hidden = (p: string) =>
    p.split(/[\\/]/).some((part) => part.startsWith('.') && part !== '.' && part !== '..');
  if (!rule.allowHidden && (hidden(given) || hidden(relative(await realpath(resolve(filesDir)), path)))) {
    throw new RowInvalid(
      `${column}: ${given} is a hidden file or lies in a hidden folder (push --allow-hidden reads it)`,
    );
  }
  const stats = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new RowInvalid(`${column}: ${given} ${unreadable(err)}`);
  });
  if (!stats.isFile()) throw new RowInvalid(`${column}: ${given} is not a file`);
  const { size } = stats;
  if (size === 0) throw new RowInvalid(`${column}: ${given} is empty`);
  if (size > rule.maxBytes) {
    throw new RowInvalid(
      `${column}: ${given} is ${formatBytes(size)}, above the limit of ${formatBytes(rule.maxBytes)} (PUSH_MAX_FILE_BYTES)`,
    );
  }
  let mimeType = MIME_BY_EXTENSION[extname(given).toLowerCase()] ?? 'application/octet-stream';
  if (rule.accept === 'image') {
    const type = imageType(await headOf(path, 8));
    if (!type) throw new RowInvalid(`${column}: ${given} is not a JPEG or PNG image (spec 4.2)`);
    mimeType = type;
  }
  return { path, name: basename(given), size, sha256: await sha256Of(path), mimeType };
}

/** Reads a prepared file when sending; refuses one that became a link elsewhere or changed size since. */
export async function readPrepared(file: PreparedFile): Promise<Buffer> {
  if ((await realpath(file.path).catch(() => undefined)) !== file.path) {
    throw new RowInvalid(`${file.name} was moved or replaced by a link after the check; nothing was sent`);
  }
  const content = await readFile(file.path);
  if (content.length !== file.size) {
    throw new RowInvalid(
      `${file.name} changed after the check (${formatBytes(file.size)}, now ${formatBytes(content.length)}); nothing was sent`,
    );
  }
  // Same size is not same content: what is sent is what was checked (and what receipts name).
  if (createHash('sha256').update(content).digest('hex') !== file.sha256) {
    throw new RowInvalid(`${file.name} changed after the check (its SHA-256 differs); nothing was sent`);
  }
  return content;
}
