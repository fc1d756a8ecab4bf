/**
 * A migration's checksum covers its SQL only (not whole-line `--` comments, blank lines or
 * spaces around lines): an applied file's explanation may be corrected, not what it does.
 * The raw-text checksums used before are listed, so a warehouse migrated then is accepted
 * (and its records updated) while the SQL is the same.
 */
import { createHash } from 'node:crypto';

/** A checksum an earlier punchline recorded for a version, and the SQL-only checksum of that same text. */
export interface EarlierChecksum {
  /** SHA-256 (hex) of the file's raw text, as recorded in `schema_migrations` before. */
  readonly raw: string;
  /** {@link sqlChecksum} of that text: the file must still have it for the record to be accepted. */
  readonly sql: string;
}

/** SHA-256 (hex) of a file's raw text: the checksum punchline recorded before {@link sqlChecksum}. */
export function rawChecksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A migration's checksum in `schema_migrations`: {@link rawChecksum} of its SQL lines, trimmed, as above. */
export function sqlChecksum(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  return rawChecksum(lines.filter((line) => line !== '' && !line.startsWith('--')).join('\n'));
}

/** Raw-text checksums recorded for each version before the SQL-only rule, by version: [raw, sql]. */
const EARLIER: Readonly<Record<string, readonly [string, string]>> = {
  '001': [
    '2a217fb67223336f76e009a0df7ef51db08e1edeb202e947694b278b1987fb86',
    '8890bf7689efb275ad7d9a242da123d8522da8f98b18d4aab3ea8b95a3ca7aba',
  ],
  '002': [
    '8ef3cb5f8de1425fb110e065b55aea95593e1411d73736d0021a2382963245a0',
    '15cf1ecba04a82dbcb2f40e45f0b6944dc335f18c7350f780edd4b2f5ed5f8fa',
  ],
  '003': [
    '7001017f5612f550a4f6e03f82b62590adf87e50ff19afad4d4fcea468b92d39',
    '538df7cf5d46c0bfbf0b6c02ccb67d32c7b46dca53931fffa89eb87ded76032f',
  ],
  '004': [
    '61588ecda491aeb88347c7c629219a02fb4d4ae816c87ff927a9a476df84fe92',
    '32cf08a47e718e8576bb96fd4ffec2f5b97fd5f47beebd4537ba6f6243d76516',
  ],
  '005': [
    '99a0c18682fdf657468922945bef5fbc63dcee7dd7d5ae7813908204905ddb13',
    'e7f45c6d40e589bd2841f46bf774e1c2c1016ba053df86e68d0b9a9d05013928',
  ],
  '006': [
    '5f123dedd7ca9f815444decde35d3f059d5e39ca0525f135c3d1edd753baed6e',
    'ef19c48e4f5cbe5887616d8f8dde5b0e9fd346867a44ff7a0756efb361a0a6d4',
  ],
  '007': [
    '3b36e09378c90299a21fdfa27992ca2d3f092605a388125395f5abfa5488707c',
    '58f27b52a73651cc307171a66938c9b82f1ed10584ceda2280af5827ac98f43d',
  ],
  '008': [
    '25bfcb06c9641738dacdbc5cd2f2cd32c8d1436b3a659ca1bb0a5b03958d7734',
    '7177bad2b679ddc228efea10de5b3236ae268d69cf71f78b74f91c7142e73fb8',
  ],
};

/** {@link EARLIER} as the records each version accepts. */
export const EARLIER_CHECKSUMS: Readonly<Record<string, readonly EarlierChecksum[]>> = Object.fromEntries(
  Object.entries(EARLIER).map(([version, [raw, sql]]) => [version, [{ raw, sql }]]),
);

/**
 * Whether `recorded`, the checksum of `version` in `schema_migrations`, stands for the file
 * now holding `text`: its SQL checksum, the raw checksum of that very text (unchanged
 * since an earlier punchline), or a listed raw one of a text with the same SQL.
 */
export function isSameMigration(
  version: string,
  recorded: string,
  text: string,
  earlier: Readonly<Record<string, readonly EarlierChecksum[]>> = EARLIER_CHECKSUMS,
): boolean {
  const current = sqlChecksum(text);
  if (recorded === current || recorded === rawChecksum(text)) return true;
  return (earlier[version] ?? []).some((e) => e.raw === recorded && e.sql === current);
}
