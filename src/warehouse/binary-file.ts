/**
 * Files the API sends as base64 (spec 2.6 attachments, spec 2.13 audit photos): always
 * described by size and SHA-256; the bytes kept only when STORE_BINARIES=1, because
 * they can be medical certificates and faces.
 */
import { createHash } from 'node:crypto';

/** What the warehouse keeps of a file. */
export interface StoredFile {
  /** Size of the decoded bytes. */
  sizeBytes: number;
  /** SHA-256 of the decoded bytes, lower-case hex. */
  sha256: string;
  /** The bytes, or null when binaries are not stored. */
  content: Buffer | null;
}

/** Decodes a base64 file and describes it; keeps the bytes only when `storeBinaries`. */
export function describeFile(base64: string, storeBinaries: boolean): StoredFile {
  const bytes = Buffer.from(base64, 'base64');
  return {
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    content: storeBinaries ? bytes : null,
  };
}
