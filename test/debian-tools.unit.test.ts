/**
 * The tests that need a Debian tool (test/support/debian-tools.ts): found on
 * TEST_TOOL_PATH or PATH; missing, they skip with one line naming the package, unless
 * CI is set, where they fail.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { debianTool, findTool, isCi, missingToolLine } from './support/debian-tools.js';

const bin = mkdtempSync(join(tmpdir(), 'punchline-tools-'));
const empty = mkdtempSync(join(tmpdir(), 'punchline-no-tools-'));
writeFileSync(join(bin, 'promtool'), '#!/bin/sh\n');
chmodSync(join(bin, 'promtool'), 0o755);
writeFileSync(join(bin, 'chromium'), 'not executable\n');
afterAll(() => [bin, empty].forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('finding a tool', () => {
  it('takes an executable from TEST_TOOL_PATH before PATH', () => {
    expect(findTool('promtool', { TEST_TOOL_PATH: `${empty}:${bin}`, PATH: empty })).toBe(
      join(bin, 'promtool'),
    );
    expect(findTool('promtool', { TEST_TOOL_PATH: empty, PATH: bin })).toBeUndefined();
    expect(findTool('promtool', { PATH: bin })).toBe(join(bin, 'promtool'));
  });

  it('ignores a file that is not executable, and relative directories', () => {
    expect(findTool('chromium', { PATH: bin })).toBeUndefined();
    expect(findTool('promtool', { PATH: 'relative/bin' })).toBeUndefined();
  });
});

describe('when the tool is missing', () => {
  it('names the Debian package that would run the tests in one line', () => {
    expect(missingToolLine('chromium')).toBe(
      'skipped: needs Debian package chromium (apt-get install chromium)',
    );
    expect(missingToolLine('promtool')).toBe(
      'skipped: needs promtool of Debian package prometheus (apt-get install prometheus)',
    );
    expect(missingToolLine('docker-compose')).toBe(
      'skipped: needs Debian package docker-compose (apt-get install docker-compose)',
    );
  });

  it('skips its tests and prints that line once, without CI', () => {
    const printed: string[] = [];
    const tool = debianTool('chromium', { TEST_TOOL_PATH: empty }, (l) => printed.push(l));
    expect(tool).toMatchObject({ path: undefined, skip: true });
    expect(printed).toEqual([missingToolLine('chromium')]);
    expect(() => tool.need()).toThrow(
      'chromium is missing: its tests need Debian package chromium (apt-get install chromium)',
    );
  });

  it('fails its tests under CI, saying they are mandatory', () => {
    const printed: string[] = [];
    const tool = debianTool('prometheus', { TEST_TOOL_PATH: empty, CI: 'true' }, (l) => printed.push(l));
    expect(tool.skip).toBe(false);
    expect(printed).toEqual([]);
    expect(() => tool.need()).toThrow(
      /^prometheus is missing: its tests need Debian package prometheus \(apt-get install prometheus\); CI is set, so they are mandatory$/,
    );
  });
});

describe('when the tool is installed', () => {
  it('runs its tests with the path, CI or not', () => {
    for (const env of [{ TEST_TOOL_PATH: bin }, { TEST_TOOL_PATH: bin, CI: '1' }]) {
      const tool = debianTool('promtool', env, () => expect.unreachable('nothing is printed'));
      expect(tool).toMatchObject({ path: join(bin, 'promtool'), skip: false });
      expect(tool.need()).toBe(join(bin, 'promtool'));
    }
  });
});

describe('CI', () => {
  it('is set by any value but empty, 0 or false', () => {
    expect([undefined, '', '0', 'false', 'FALSE'].map((CI) => isCi({ CI }))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['true', '1', 'yes'].map((CI) => isCi({ CI }))).toEqual([true, true, true]);
  });
});
