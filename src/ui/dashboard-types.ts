/**
 * The data shapes the dashboard page consumes: the lab's own (`src/lab/lab-types.ts` owns them),
 * under the names the page uses. Type-only, so nothing of the lab enters the page's bundle.
 */
import type { DashboardClient, DashboardSnapshot, SituationName } from '../lab/lab-types.js';

export type { CoverageReport, DashboardClient, DashboardSnapshot, Verdict } from '../lab/lab-types.js';
export type Situation = SituationName;
export type DashboardWindow = DashboardClient['windows'][number];
export type RecentRequest = DashboardSnapshot['recent'][number];

/** The API's Error shape, which every /__mock/* refusal uses. */
export interface ApiError {
  code: string;
  message: string;
  status: number;
}
