// Skipped-record counts in words, so nothing a profile held is dropped without a trace.

import { SkipCounts } from '../model/profile';

const SKIP_REASONS: Record<keyof SkipCounts, string> = {
  durationUnderflow: 'experiments with a duration of 2^63 ns or more (a size_t underflow in COZ)',
  orphanPoints: 'progress-point records with no experiment before them',
  malformed: 'unreadable records',
  cozHeader: "experiments on coz.h itself (COZ's viewer drops them too)",
  truncatedTail: 'partial last line (COZ may still be writing)',
};

/** e.g. "3 experiments with a duration…; 1 partial last line…", or '' when nothing was skipped. */
export function describeSkips(skipped: SkipCounts): string {
  return (Object.keys(SKIP_REASONS) as (keyof SkipCounts)[])
    .filter((key) => skipped[key] > 0)
    .map((key) => `${skipped[key]} ${SKIP_REASONS[key]}`)
    .join('; ');
}
