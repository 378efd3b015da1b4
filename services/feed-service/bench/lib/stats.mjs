// Summaries of the rounds' figures.

export const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** "min–max" with this many digits */
export const spread = (list, digits) =>
  `${Math.min(...list).toFixed(digits)}–${Math.max(...list).toFixed(digits)}`;

/** the p-th percentile of a list of ms, as text with two decimals */
export const pct = (list, p) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2);
};
