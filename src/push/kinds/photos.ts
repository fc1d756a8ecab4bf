/**
 * spec 4.2 `POST collaborator/photo`: the face photo of a collaborator found by CPF, from an image
 * file (`photo`) or inline (`photo_base64`). No read of the API shows faces, so a photo exists when
 * punchline's receipts (receipts.ts) show the same image (SHA-256) sent for the same CPF in the
 * company; sending it again would only replace it with itself.
 */
import { createHash } from 'node:crypto';
import { RowInvalid, type Existing, type WriteKind } from '../kind.js';
import { readPrepared, type PreparedFile } from '../files.js';
import { findReceipts } from '../receipts.js';

/** A photo row: the CPF and the image, as a checked file or inline base64. */
export interface PhotoBody {
  readonly national_registry: string;
  /** The image file, read when sending. */
  readonly photo?: PreparedFile;
  /** Inline image (spec 4.2 `photo_base64`). */
  readonly photo_base64?: string;
  /** SHA-256 of the image bytes (hex). */
  readonly sha256: string;
}

/** `push photos`. */
export const photos: WriteKind<PhotoBody> = {
  name: 'photos',
  endpoint: 'POST collaborator/photo',
  summary: 'sends face photos (JPEG or PNG) for facial recognition',
  columns: {
    national_registry: { type: 'cpf', required: true, doc: 'CPF of the collaborator' },
    photo: { type: 'file', accept: 'image', doc: 'path of a JPEG or PNG image inside the files folder' },
    photo_base64: {
      type: 'base64',
      accept: 'image',
      doc: 'the image as base64 without a data: prefix (instead of photo)',
    },
  },
  references: [],
  body(v) {
    const file = v.photo as PreparedFile | undefined;
    const inline = v.photo_base64 as string | undefined;
    if ((file === undefined) === (inline === undefined))
      throw new RowInvalid('give exactly one of photo (a file) or photo_base64');
    const sha256 = file?.sha256 ?? createHash('sha256').update(Buffer.from(inline!, 'base64')).digest('hex');
    return {
      national_registry: v.national_registry as string,
      sha256,
      ...(file ? { photo: file } : { photo_base64: inline! }),
    };
  },
  key: (body) => `${body.national_registry}|${body.sha256}`,
  async check(ctx, candidates) {
    const sent = await findReceipts(
      ctx,
      'photos',
      candidates.map((c) => c.key),
    );
    const out = new Map<number, Existing>();
    for (const c of candidates) {
      const r = sent.get(c.key);
      if (r) {
        out.set(c.index, {
          exists: true,
          note: `the same image was sent for CPF ${c.body.national_registry} on ${r.createdAt.toISOString()} (${r.file} line ${r.line})`,
        });
      }
    }
    return out;
  },
  async write(api, body, call) {
    const photo_base64 = body.photo_base64 ?? (await readPrepared(body.photo!)).toString('base64');
    await api.uploadCollaboratorPhoto({ national_registry: body.national_registry, photo_base64 }, call);
    return {};
  },
  // No read of the API shows face photos: nothing to sync.
  touches: () => [],
};
