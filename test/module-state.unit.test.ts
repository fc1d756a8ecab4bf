/**
 * No module-level state in src/: what a runtime learns or owes (spans, warnings said, drift,
 * pauses, the events' sink) lives in the runtime, and importing a file starts or subscribes to
 * nothing. The few module-level values left are named here with the reason they may be shared
 * by every runtime of a process; a new one fails this test until it moves or is added with its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The .ts files under `dir`, as repository paths. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

/** Module-level values that may be shared, `file:name`, with why. */
const SHARED: Readonly<Record<string, string>> = {
  'src/util/time.ts:formatters': 'a cache of Intl formatters: the same answer for every runtime',
  'src/util/time.ts:knownZones': 'a cache of zone names Intl accepts',
  'src/util/local-time.ts:offsetsByZone': 'a cache of UTC offsets, a pure function of zone and time',
  'src/util/legal-time.ts:LEGAL': 'a cache of the legal time of each CEP range, pure',
  'src/emulator/attachments.ts:faceCache': "a cache of the emulator's generated images, pure of the seed",
  'src/emulator/lookup-generator.ts:shiftCache': "a cache of the emulator's generated shifts, pure",
  'src/emulator/answer-faults.ts:elementSpoilers': 'keyed by the request object: state of one answer',
  'src/emulator/answer-faults.ts:bodySpoilers': 'keyed by the request object: state of one answer',
  'src/emulator/corrupt-element.ts:corruptRequests': 'keyed by the request object: state of one answer',
  'src/emulator/http/read-routes.ts:cutRequests': 'keyed by the request object: state of one answer',
  'src/quality/check-pool.ts:opened':
    'a fact about a pool object (its sessions are set up), not shared state',
  'src/api/drift.ts:current': "holds nothing itself: the running validation's own watch (AsyncLocalStorage)",
  'src/logger.ts:secrets':
    'secrets scrubbed from every output of the process: a token one runtime knows is never printed by another',
  'src/telemetry/tracing.ts:installed': "OpenTelemetry's tracer provider is process-wide by its API",
};

/** Top-level declarations of mutable values: `let`, or a Map/Set/WeakMap/WeakSet not typed read-only. */
const MUTABLE =
  /^(?:export )?(?:let|var) (\w+)|^(?:export )?const (\w+)(?::\s*(?!Readonly)[^=]+)? = new (?:Map|Set|WeakMap|WeakSet|AsyncLocalStorage)\b/;
/** A call at the top level of a module (a subscription, a registration, a timer); Lua lines of scripts aside. */
const TOP_LEVEL_CALL = /^(?:await )?(?!redis\.call\()[\w.]+\(/;

/** Top-level `new Set([...])` constants: read-only by use, declared without a read-only type. */
function isConstantSet(line: string): boolean {
  return /= new Set\(\[|= new Set\(\s*$|= new Map<[^>]+>\([A-Z_]+\.map/.test(line);
}

describe('module-level state in src/', () => {
  const files = sources('src');

  it('declares no mutable value at the top level of a module, except the named shared ones', () => {
    const found: string[] = [];
    for (const file of files) {
      for (const line of readFileSync(join(ROOT, file), 'utf8').split('\n')) {
        const m = MUTABLE.exec(line);
        if (!m || isConstantSet(line)) continue;
        const key = `${file}:${m[1] ?? m[2]}`;
        if (!(key in SHARED)) found.push(key);
      }
    }
    expect(found).toEqual([]);
  });

  it('subscribes, registers or starts nothing when a module is imported', () => {
    const calls = files.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => TOP_LEVEL_CALL.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    // src/cli.ts is the program itself: its top level parses the command line.
    expect(calls.filter((c) => !c.startsWith('src/cli.ts:'))).toEqual([]);
  });

  it('names only values that still exist', () => {
    for (const key of Object.keys(SHARED)) {
      const [file, name] = key.split(':') as [string, string];
      expect(readFileSync(join(ROOT, file), 'utf8'), key).toMatch(
        new RegExp(`^(?:export )?(?:const|let) ${name}\\b`, 'm'),
      );
    }
  });
});
