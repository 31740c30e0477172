/**
 * The constant-time comparison of a secret a caller gave with the one configured (API keys,
 * the management token).
 *
 * @module
 */

/**
 * True when `given` is the secret `expected`, compared in constant time (the time does not
 * tell how much of it matched).
 *
 * @example
 * ```ts
 * import { tokenMatches } from "./token.ts";
 * console.assert(tokenMatches("k3y", "k3y") && !tokenMatches("k3", "k3y"));
 * ```
 */
export function tokenMatches(given: string, expected: string): boolean {
  const left = new TextEncoder().encode(given);
  const right = new TextEncoder().encode(expected);
  let diff = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) diff |= (left[i] ?? 0) ^ right[i];
  return diff === 0;
}
