/**
 * The rate-limit lab (issue 12), browser-safe: types, the client judge, coverage, the report and its
 * JUnit form, scenarios, replay input and driver, the timeline picture. The Node-only command is
 * `src/cli/replay-command.ts`. Design: docs/decisions/012-rate-limit-lab.md.
 */

// This entry runs in pages too: it hands the library zod as it loads, and exports the scenario schema as a value.
import '../../spec/zod-for-pages.js';
import { scenarioSchema } from '../core/config/scenario-file.js';

/** The scenario file's zod schema (what `parseScenario` decodes with). */
export const ScenarioSchema = scenarioSchema();

export {
  describeScenarioPresets,
  parseScenario,
  planScenario,
  type Scenario,
  type ScenarioClient,
  type ScenarioContext,
  type ScenarioOperation,
  type ScenarioPlan,
  type ScenarioPresetName,
  scenarioPresetNames,
  scenarioPresets,
  validateScenario,
} from '../core/config/scenario-file.js';
export {
  type BackoffSample,
  type ClientJudgeState,
  clientVerdicts,
  createClientJudgeState,
  maxSamples,
  observeClient,
  type RetrySample,
  retryAfterToleranceMs,
} from './client-judge.js';
export {
  type CoverageState,
  coverageReport,
  createCoverageState,
  missingCoverage,
  observeCoverage,
  parseSituationList,
} from './coverage.js';
export {
  buildLabReport,
  clientReport,
  clockStateAt,
  createLabSessionState,
  expectWellBehaved,
  type LabSessionState,
  labReportJunit,
  observeLab,
  xmlEscape,
} from './lab-report.js';
export { labReportVersion, parseLabReport } from './lab-report-schema.js';
export * from './lab-types.js';
export {
  type ReplayClientSummary,
  type ReplayOptions,
  type ReplayResult,
  type ReplayTarget,
  replay,
} from './replay.js';
export {
  anonymousPseudonym,
  displayKey,
  type ExportLine,
  keyPseudonym,
  keyPseudonymFromDigest,
  maxExportBodyBytes,
  parseKeyMapping,
  parseReplayInput,
  ReplayInputError,
  type ReplayInputOptions,
  type ReplayRequest,
  toExportLine,
} from './replay-input.js';
export { observationFromHit, observeExchange, windowResetOf } from './response-observer.js';
export { escapeXml, formatDuration, renderTimelineSvg } from './timeline-svg.js';
