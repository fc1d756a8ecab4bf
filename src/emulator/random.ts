/** Seeded, stateless randomness: values are pure functions of seed and keys, so days come in any order. */

/** 32-bit hash of a string (murmur3-style mixing of FNV-1a), used to turn the seed into a number. */
export function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

/** murmur3 finalizer: spreads every input bit over the 32 output bits. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a base hash with integer keys into a new 32-bit seed. */
function mixKeys(base: number, ...keys: number[]): number {
  let h = base >>> 0;
  for (const k of keys) {
    h = fmix((h ^ Math.imul(k | 0, 0x9e3779b1)) + 0x7f4a7c15);
  }
  return h;
}

/** A small fast PRNG (mulberry32) with the helpers the generators need. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [min, max], both inclusive. */
  range(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A string of `n` random decimal digits. */
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(10));
    return s;
  }
}

/** A generator seeded from a base hash and integer keys. */
export function rngFor(base: number, ...keys: number[]): Rng {
  return new Rng(mixKeys(base, ...keys));
}
