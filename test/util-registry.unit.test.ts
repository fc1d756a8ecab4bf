import { describe, expect, it } from 'vitest';
import {
  digitsOnly,
  isValidCnpj,
  isValidCpf,
  makeCnpj,
  makeCpf,
  padCpf,
} from '../src/util/national-registry.js';

describe('CPF check digits', () => {
  it.each([
    ['529982247', '52998224725'],
    ['111444777', '11144477735'],
    ['000000001', '00000000191'],
    ['012345678', '01234567890'],
  ])('completes %s into %s', (base, cpf) => {
    expect(makeCpf(base)).toBe(cpf);
    expect(isValidCpf(cpf)).toBe(true);
  });

  it('rejects a wrong check digit, repeated digits and wrong lengths', () => {
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('52998224715')).toBe(false);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCpf('00000000000')).toBe(false);
    expect(isValidCpf('5299822472')).toBe(false);
    expect(isValidCpf('529.982.247-25')).toBe(false);
    expect(() => makeCpf('12345678')).toThrow(RangeError);
  });

  it('keeps leading zeros (a CPF is a string, not a number)', () => {
    const cpf = makeCpf('000123456');
    expect(cpf).toHaveLength(11);
    expect(cpf.startsWith('000123456')).toBe(true);
    expect(isValidCpf(cpf)).toBe(true);
  });
});

describe('CNPJ check digits', () => {
  it.each([
    ['112223330001', '11222333000181'],
    ['000000000001', '00000000000191'],
    ['123456780001', '12345678000195'],
  ])('completes %s into %s', (base, cnpj) => {
    expect(makeCnpj(base)).toBe(cnpj);
    expect(isValidCnpj(cnpj)).toBe(true);
  });

  it('rejects a wrong check digit, repeated digits and wrong lengths', () => {
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('11222333000171')).toBe(false);
    expect(isValidCnpj('00000000000000')).toBe(false);
    expect(isValidCnpj('1122233300018')).toBe(false);
    expect(() => makeCnpj('11222333000')).toThrow(RangeError);
  });
});

describe('padCpf (spec 4.2 photo upload: zeros filled up to 11)', () => {
  it.each([
    ['191', '00000000191'],
    ['123456789', '00123456789'],
    ['52998224725', '52998224725'],
    ['529.982.247-25', '52998224725'],
    ['', '00000000000'],
  ])('pads %j to %s', (input, padded) => {
    expect(padCpf(input)).toBe(padded);
  });
});

describe('digitsOnly', () => {
  it('strips punctuation and keeps leading zeros', () => {
    expect(digitsOnly('012.345.678-90')).toBe('01234567890');
    expect(digitsOnly('00.000.000/0001-91')).toBe('00000000000191');
  });
});
