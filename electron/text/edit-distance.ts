/**
 * Levenshtein distance between two short strings (words, phrases, setting keys): the fewest
 * letters inserted, deleted or changed to turn one into the other. Longer than `maxLength`, either
 * one: Infinity (a pasted giant string is no near-miss of anything, and must not cost O(n·m)).
 */
export function editDistance(a: string, b: string, maxLength = 64): number {
  if (a.length > maxLength || b.length > maxLength) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
