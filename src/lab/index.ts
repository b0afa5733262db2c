/**
 * The rate-limit lab (issue 12), browser-safe: types, the client judge, coverage, the report and its
 * JUnit form, scenarios, replay input and driver, the timeline picture. The Node-only command is
 * `src/cli/replay-command.ts`. Design: docs/decisions/012-rate-limit-lab.md.
 */
export * from './lab-types.js';
export {
  clientVerdicts,
  createClientJudgeState,
  observeClient,
  retryAfterToleranceMs,
  maxSamples,
  type ClientJudgeState,
  type RetrySample,
  type BackoffSample,
} from './client-judge.js';
export {
  coverageReport,
  createCoverageState,
  missingCoverage,
  observeCoverage,
  parseSituationList,
  type CoverageState,
} from './coverage.js';
export {
  buildLabReport,
  clientReport,
  clockStateAt,
  createLabSessionState,
  expectWellBehaved,
  labReportJunit,
  observeLab,
  xmlEscape,
  type LabSessionState,
} from './lab-report.js';
export { observationFromHit, observeExchange, windowResetOf } from './response-observer.js';
export {
  describeScenarioPresets,
  parseScenario,
  planScenario,
  scenarioPresetNames,
  scenarioPresets,
  ScenarioSchema,
  validateScenario,
  type Scenario,
  type ScenarioClient,
  type ScenarioContext,
  type ScenarioOperation,
  type ScenarioPlan,
  type ScenarioPresetName,
} from '../core/config/scenario-file.js';
export {
  anonymousPseudonym,
  displayKey,
  keyPseudonym,
  keyPseudonymFromDigest,
  maxExportBodyBytes,
  parseKeyMapping,
  parseReplayInput,
  ReplayInputError,
  toExportLine,
  type ExportLine,
  type ReplayInputOptions,
  type ReplayRequest,
} from './replay-input.js';
export {
  replay,
  type ReplayClientSummary,
  type ReplayOptions,
  type ReplayResult,
  type ReplayTarget,
} from './replay.js';
export { escapeXml, formatDuration, renderTimelineSvg } from './timeline-svg.js';
