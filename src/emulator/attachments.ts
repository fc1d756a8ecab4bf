/** Small real files for audit photos (spec 2.13) and attachments (spec 2.6): PNGs and one-page PDFs. */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Encodes RGB pixels (row-major, 3 bytes each) as a PNG. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const faceCache = new Map<number, Buffer>();

/** A 64×64 PNG portrait (a face on a coloured background); 16 variants. */
export function facePng(variant: number): Buffer {
  const v = ((variant % 16) + 16) % 16;
  const hit = faceCache.get(v);
  if (hit) return hit;
  const w = 64;
  const h = 64;
  const px = new Uint8Array(w * h * 3);
  const bg = [120 + ((v * 37) % 100), 150 + ((v * 53) % 90), 170 + ((v * 29) % 80)];
  const skin = [
    [241, 194, 125],
    [224, 172, 105],
    [198, 134, 66],
    [141, 85, 36],
  ][v % 4]!;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const dx = (x - 32) / 17;
      const dy = (y - 30) / 22;
      let c = bg;
      if (dx * dx + dy * dy <= 1) c = skin;
      const eye = (ex: number): boolean => (x - ex) ** 2 + (y - 25) ** 2 <= 5;
      if (eye(25) || eye(39)) c = [40, 30, 20];
      if (y >= 38 && y <= 40 && x >= 26 && x <= 38) c = [150, 60, 60];
      if (y > 54 && Math.abs(x - 32) < 26) c = [40 + v * 10, 60, 110];
      const i = (y * w + x) * 3;
      px[i] = c[0]!;
      px[i + 1] = c[1]!;
      px[i + 2] = c[2]!;
    }
  }
  const png = encodePng(w, h, px);
  faceCache.set(v, png);
  return png;
}

/** A 48×64 grey "scanned document" PNG with text-like lines. */
export function scanPng(variant: number): Buffer {
  const w = 48;
  const h = 64;
  const px = new Uint8Array(w * h * 3).fill(245);
  for (let y = 6; y < h - 6; y += 4) {
    const len = 10 + ((variant * 7 + y * 13) % 28);
    for (let x = 5; x < 5 + len; x++) {
      const i = (y * w + x) * 3;
      px[i] = px[i + 1] = px[i + 2] = 70;
    }
  }
  return encodePng(w, h, px);
}

/** A minimal, valid one-page PDF showing `lines` (ASCII only is kept). */
export function textPdf(lines: readonly string[]): Buffer {
  const ascii = (s: string): string =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]/g, '?')
      .replace(/([()\\])/g, '\\$1');
  const content = [
    'BT',
    '/F1 11 Tf',
    '50 780 Td',
    '14 TL',
    ...lines.map((l) => `(${ascii(l)}) '`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Width and height of a PNG or baseline/progressive JPEG; null when the header cannot be read. */
export function imageSize(buf: Buffer): { type: 'png' | 'jpeg'; width: number; height: number } | null {
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString('ascii', 12, 16) === 'IHDR') {
    return { type: 'png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  // JPEG segments until the first start-of-frame marker (C0–CF but C4, C8, CC), which holds the size.
  for (let i = 2; i + 9 < buf.length; i += 2 + buf.readUInt16BE(i + 2)) {
    if (buf[i] !== 0xff) return null;
    const marker = buf[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { type: 'jpeg', height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    }
  }
  return null;
}

/** True when the bytes start like a PNG or a JPEG. */
export function looksLikeImage(buf: Buffer): boolean {
  return (
    (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) ||
    (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff)
  );
}
