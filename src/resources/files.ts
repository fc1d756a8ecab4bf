/**
 * Files the API sends as base64 (spec 2.6 attachments, spec 2.13 audit photos): their
 * size and SHA-256 are always stored, their bytes only when STORE_BINARIES is on (faces
 * and medical certificates are personal data).
 */
import { createHash } from 'node:crypto';

/** Decodes a base64 file: its size, lower-case hex SHA-256, and bytes (null when binaries are not stored). */
export function storedFile(base64: string, storeBinaries: boolean) {
  const bytes = Buffer.from(base64, 'base64');
  return { size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), content: storeBinaries ? bytes : null };
}
