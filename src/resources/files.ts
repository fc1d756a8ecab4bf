/**
 * Files the API sends as base64 (spec 2.6 attachments, spec 2.13 audit photos): their
 * size and SHA-256 are always stored, their bytes only when STORE_BINARIES is on (faces
 * and medical certificates are personal data).
 */
import { createHash } from 'node:crypto';

/** What is stored of one file. */
export interface StoredFile {
  /** Size of the decoded bytes. */
  readonly size_bytes: number;
  /** SHA-256 of the decoded bytes, lower-case hex. */
  readonly sha256: string;
  /** The bytes, or null when binaries are not stored. */
  readonly content: Buffer | null;
}

/** Decodes a base64 file and describes it. */
export function storedFile(base64: string, storeBinaries: boolean): StoredFile {
  const bytes = Buffer.from(base64, 'base64');
  return { size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), content: storeBinaries ? bytes : null };
}
