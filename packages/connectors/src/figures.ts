/** A total over parts, unknown (null) when any part's figure is unknown, rather than a sum that silently leaves it out. */
export function sumKnown(values: readonly (number | null)[]): number | null {
  return values.includes(null) ? null : values.reduce<number>((total, value) => total + (value ?? 0), 0);
}
