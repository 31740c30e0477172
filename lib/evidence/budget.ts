/**
 * Splitting one token budget between groups that may need less than a fair
 * share: what a group cannot use goes to the others (water-filling).
 *
 * @module
 */

/**
 * Splits `total` between groups with the given demands (`Infinity` = can use
 * any amount). Groups that need less than an equal share get what they need;
 * the rest is split evenly among the others.
 *
 * @example
 * ```ts
 * import { shareBudget } from "./budget.ts";
 * const shares = shareBudget(1000, [100, Infinity, Infinity]);
 * console.assert(shares[0] === 100 && shares[1] === 450 && shares[2] === 450);
 * ```
 */
export function shareBudget(total: number, demands: readonly number[]): number[] {
  const shares = demands.map(() => 0);
  let open = demands.map((_, i) => i);
  let left = Math.max(0, Math.floor(total));
  while (open.length > 0 && left > 0) {
    const fair = Math.floor(left / open.length);
    const satisfied = open.filter((i) => demands[i] - shares[i] <= fair);
    if (satisfied.length === 0) {
      for (const i of open) shares[i] += fair;
      let remainder = left - fair * open.length;
      for (const i of open) {
        if (remainder-- <= 0) break;
        shares[i] += 1;
      }
      break;
    }
    for (const i of satisfied) {
      left -= demands[i] - shares[i];
      shares[i] = demands[i];
    }
    open = open.filter((i) => !satisfied.includes(i));
  }
  return shares;
}
