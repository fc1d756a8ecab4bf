/**
 * Positions of records that have no id of their own (spec 2.9 adjustments, spec 2.10
 * occurrences): 1, 2, ... per day, in the order the API lists them for one collaborator.
 */

/** A counter per key: the first call for a key gives 1, the next 2, and so on. */
export function sequencer(): (key: string) => number {
  const seen = new Map<string, number>();
  return (key) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n;
  };
}
