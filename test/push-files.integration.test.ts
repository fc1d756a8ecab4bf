/**
 * What `push` reads from the files folder (real files on disk): a hidden file or folder
 * (`.ssh/id_rsa`, `.env`) is an invalid row unless `--allow-hidden` says so, by the path as
 * given or as a link resolves; and a file that changed after its check is not sent, even
 * when its size stayed the same.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareFile, readPrepared } from '../src/push/files.js';
import { RowInvalid } from '../src/push/kind.js';

const dir = mkdtempSync(join(tmpdir(), 'push-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

mkdirSync(join(dir, '.ssh'));
writeFileSync(join(dir, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n');
writeFileSync(join(dir, '.env'), 'API_TOKEN=do-not-upload-me\n');
writeFileSync(join(dir, 'ok.pdf'), '%PDF-1.4\n% ok\n');
symlinkSync(join(dir, '.env'), join(dir, 'cert.pdf'));

const rule = { maxBytes: 64 * 1024 };
const messageOf = (p: Promise<unknown>) =>
  p.then(
    () => 'read',
    (e: unknown) => (e instanceof RowInvalid ? e.message : String(e)),
  );

describe('hidden files and folders', () => {
  it('are invalid rows by default, by the path given or the one a link leads to', async () => {
    expect(await messageOf(prepareFile(dir, 'attachment', '.ssh/id_rsa', rule))).toBe(
      'attachment: .ssh/id_rsa is a hidden file or lies in a hidden folder (push --allow-hidden reads it)',
    );
    expect(await messageOf(prepareFile(dir, 'attachment', '.env', rule))).toMatch(
      /^attachment: \.env is a hidden file/,
    );
    expect(await messageOf(prepareFile(dir, 'attachment', 'cert.pdf', rule))).toMatch(
      /^attachment: cert\.pdf is a hidden file/,
    );
    expect(await messageOf(prepareFile(dir, 'attachment', './ok.pdf', rule))).toBe('read');
  });

  it('are read with --allow-hidden', async () => {
    const file = await prepareFile(dir, 'attachment', '.ssh/id_rsa', { ...rule, allowHidden: true });
    expect(file.name).toBe('id_rsa');
    expect((await readPrepared(file)).toString()).toContain('OPENSSH');
  });
});

describe('a file that changes after its check', () => {
  it('is not sent when its content differs, even at the same size', async () => {
    const path = join(dir, 'laudo.pdf');
    writeFileSync(path, '%PDF-1.4\n% laudo A\n');
    const file = await prepareFile(dir, 'attachment', 'laudo.pdf', rule);
    expect((await readPrepared(file)).toString()).toContain('laudo A');
    writeFileSync(path, '%PDF-1.4\n% laudo B\n');
    expect(await messageOf(readPrepared(file))).toBe(
      'laudo.pdf changed after the check (its SHA-256 differs); nothing was sent',
    );
  });
});
