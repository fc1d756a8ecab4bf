import { describe, expect, it } from 'vitest';
import {
  checkZoneAgainstCep,
  formatOffset,
  legalTimeOfCep,
  utcOffsetMinutes,
} from '../src/util/legal-time.js';

const NOW = new Date('2026-07-01T12:00:00Z');

describe('legalTimeOfCep', () => {
  it.each([
    ['01310-100', 'SP', 'America/Sao_Paulo'],
    ['20040-020', 'RJ', 'America/Sao_Paulo'],
    ['69005-040', 'AM', 'America/Manaus'],
    ['69301-000', 'RR', 'America/Boa_Vista'],
    ['69880-000', 'AM', 'America/Manaus'],
    ['69900-000', 'AC', 'America/Rio_Branco'],
    ['69918-100', 'AC', 'America/Rio_Branco'],
    ['76801-000', 'RO', 'America/Porto_Velho'],
    ['78005-000', 'MT', 'America/Cuiaba'],
    ['79002-000', 'MS', 'America/Campo_Grande'],
    ['70040-010', 'DF', 'America/Sao_Paulo'],
    ['72850-000', 'GO', 'America/Sao_Paulo'],
    ['73010-000', 'DF', 'America/Sao_Paulo'],
    ['74000-000', 'GO', 'America/Sao_Paulo'],
    ['53990-000', 'PE (Fernando de Noronha)', 'America/Noronha'],
    ['50030-000', 'PE', 'America/Recife'],
    ['68900-000', 'AP', 'America/Belem'],
    ['90010-000', 'RS', 'America/Sao_Paulo'],
  ])('places %s in %s (%s)', (zip, state, zone) => {
    const legal = legalTimeOfCep(zip);
    expect(legal?.state).toBe(state);
    expect(legal?.zones[0]).toBe(zone);
  });

  it('reads digits only, and pads a CEP that lost its leading zero', () => {
    expect(legalTimeOfCep('69005040')?.state).toBe('AM');
    expect(legalTimeOfCep(' 69.005-040 ')?.state).toBe('AM');
    expect(legalTimeOfCep('1310100')?.state).toBe('SP');
  });

  it('knows nothing of an empty, short, long or out-of-range value', () => {
    for (const zip of [null, undefined, '', '123', '123456789', '00000-000', '00999-999'])
      expect(legalTimeOfCep(zip)).toBeUndefined();
  });
});

describe('checkZoneAgainstCep', () => {
  it('compares offsets, not names: Cuiabá time agrees with a Manaus CEP', () => {
    expect(checkZoneAgainstCep('America/Cuiaba', '69005-040', NOW)?.agrees).toBe(true);
    expect(checkZoneAgainstCep('America/Porto_Velho', '78005-000', NOW)?.agrees).toBe(true);
    expect(checkZoneAgainstCep('America/Recife', '01310-100', NOW)?.agrees).toBe(true);
  });

  it('finds Brasília time wrong for Amazonas, Mato Grosso and Acre', () => {
    const am = checkZoneAgainstCep('America/Sao_Paulo', '69005-040', NOW)!;
    expect(am).toMatchObject({ agrees: false, offsetInUse: -180 });
    expect(am.legalOffsets).toContain(-240);
    expect(checkZoneAgainstCep('America/Sao_Paulo', '78005-000', NOW)?.agrees).toBe(false);
    expect(checkZoneAgainstCep('America/Manaus', '69918-100', NOW)).toMatchObject({
      agrees: false,
      legalOffsets: [-300],
    });
    expect(checkZoneAgainstCep('America/Sao_Paulo', '53990-000', NOW)).toMatchObject({
      agrees: false,
      legalOffsets: [-120],
    });
  });

  it('takes either legal time of Amazonas as right (its CEPs do not split by it)', () => {
    expect(checkZoneAgainstCep('America/Eirunepe', '69880-000', NOW)?.agrees).toBe(true);
    expect(checkZoneAgainstCep('America/Manaus', '69880-000', NOW)?.agrees).toBe(true);
    expect(checkZoneAgainstCep('America/Rio_Branco', '69005-040', NOW)?.agrees).toBe(true);
  });

  it('finds a zone outside Brazil wrong, and says nothing without a CEP', () => {
    expect(checkZoneAgainstCep('UTC', '01310-100', NOW)?.agrees).toBe(false);
    expect(checkZoneAgainstCep('America/Sao_Paulo', null, NOW)).toBeUndefined();
  });
});

describe('offsets', () => {
  it('reads a zone offset at an instant and prints it', () => {
    expect(utcOffsetMinutes('America/Rio_Branco', NOW)).toBe(-300);
    // Before 2019, São Paulo kept summer time: the instant matters.
    expect(utcOffsetMinutes('America/Sao_Paulo', new Date('2018-01-15T12:00:00Z'))).toBe(-120);
    expect(formatOffset(-240)).toBe('UTC−4');
    expect(formatOffset(330)).toBe('UTC+5:30');
    expect(formatOffset(0)).toBe('UTC');
  });
});
