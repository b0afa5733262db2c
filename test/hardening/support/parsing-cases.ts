import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenApiDocument } from '../../../spec/openapi-types.js';
import { parseMockConfig } from '../../../src/core/config/mock-config.js';
import { maxJsonTextLength, maxYamlTextLength } from '../../../src/core/config/yaml-text.js';
import { createMockApp, type MockApp } from '../../../src/core/mock-app.js';
import {
  maxHarTextLength,
  maxReplayFileBytes,
  parseReplayInput,
  ReplayInputError,
} from '../../../src/lab/replay-input.js';
import { maxConfigFileBytes, readConfigFile } from '../../../src/server/config-file.js';
import { jsonShapes, type ReplayShape, replayShapes, type TextShape, yamlShapes } from './worst-case-inputs.js';

/**
 * Every input the kit parses, fed each worst-case shape at its size limit (issue 28, item 4): the
 * scenario body (YAML up to the YAML reader's bound, JSON up to the body limit), the config file
 * (the same), the replay recording (HAR and JSON lines up to the file bound) and the API's request
 * bodies. Shared by test/hardening/input-parsing.test.ts (a generous bound) and
 * bench/parsing-bench.ts (the figures, each under 1 s).
 *
 * A case is timed from the text to the answer: for a body, the whole `app.handle` (decoding,
 * validation, the answer); for a config, `readConfigFile` (reading the file too); for a recording,
 * `parseReplayInput`. The text is built before the clock starts.
 */
export interface ParsingCase {
  /** `scenario (YAML): many top-level keys`. */
  name: string;
  input: 'scenario' | 'config' | 'replay' | 'request body';
  /** The limit the text is built up to, in bytes. */
  limitBytes: number;
  /** Builds the text (not timed). */
  make(): string;
  /** Parses `text`; resolves to what happened, or a reason the answer is wrong (a 5xx, an unexpected error). */
  run(text: string): Promise<{ outcome: string; problem?: string }>;
}

/** The default body limit (maxBodyBytes). */
const maxBodyBytes = parseMockConfig({}).maxBodyBytes;

function request(app: MockApp, url: string, contentType: string, text: string, session: string) {
  return app.handle({
    method: 'POST',
    url,
    headers: { 'content-type': contentType, authorization: 'Bearer demo-enterprise', 'x-mock-session': session },
    body: new TextEncoder().encode(text),
    clientAddress: '127.0.0.1',
  });
}

/** A 5xx is a wrong answer; everything else (applied, or refused with a 4xx) is an outcome. */
function httpOutcome(response: { status: number; body: string | null }) {
  const outcome = `${response.status}`;
  return response.status >= 500
    ? { outcome, problem: `answered ${response.status}: ${(response.body ?? '').slice(0, 200)}` }
    : { outcome };
}

/** A thrown error is an outcome when it is the reader's own one-line refusal. */
function refusalOutcome(error: unknown, expected: (error: Error) => boolean) {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && expected(error) && !message.includes('\n')) return { outcome: 'refused' };
  return { outcome: 'threw', problem: `threw something other than a one-line refusal: ${message.slice(0, 300)}` };
}

/**
 * The cases. `folder` holds the config files (written by the case, removed by `dispose`); the app
 * is one per case, so one case's state never costs the next.
 */
export async function parsingCases(spec: OpenApiDocument): Promise<{ cases: ParsingCase[]; dispose(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-parsing-'));
  const plans = parseMockConfig({}).plans;
  const cases: ParsingCase[] = [];
  let files = 0;

  const scenario = (kind: 'YAML' | 'JSON', shape: TextShape, limitBytes: number): ParsingCase => ({
    name: `scenario (${kind}): ${shape.name}`,
    input: 'scenario',
    limitBytes,
    make: () => shape.make(limitBytes),
    run: async (text) =>
      httpOutcome(
        await request(
          createMockApp({ spec, config: {} }),
          '/__mock/scenario',
          kind === 'YAML' ? 'application/yaml' : 'application/json',
          text,
          'parsing',
        ),
      ),
  });
  const config = (kind: 'YAML' | 'JSON', shape: TextShape, limitBytes: number): ParsingCase => ({
    name: `config (${kind}): ${shape.name}`,
    input: 'config',
    limitBytes,
    make: () => shape.make(limitBytes),
    async run(text) {
      const path = join(folder, `config-${(files += 1)}.yaml`);
      await writeFile(path, text);
      try {
        await readConfigFile(path);
        return { outcome: 'read' };
      } catch (error) {
        return refusalOutcome(error, (thrown) => thrown.message.startsWith(`Failed to load config ${path}: `));
      }
    },
  });
  const body = (shape: TextShape): ParsingCase => ({
    name: `request body (JSON): ${shape.name}`,
    input: 'request body',
    limitBytes: maxBodyBytes,
    make: () => shape.make(maxBodyBytes),
    run: async (text) =>
      httpOutcome(
        await request(createMockApp({ spec, config: {} }), '/v1/categories', 'application/json', text, 'parsing'),
      ),
  });
  const replay = (shape: ReplayShape, limitBytes: number, bound = ''): ParsingCase => ({
    name: `replay (${shape.format}${bound}): ${shape.name}`,
    input: 'replay',
    limitBytes,
    make: () => shape.make(limitBytes),
    async run(text) {
      try {
        return {
          outcome: `${parseReplayInput(text, { plans, demoKeys: { 'demo-free': 'free' }, defaultPlan: 'free' }).length} requests`,
        };
      } catch (error) {
        return refusalOutcome(error, (thrown) => thrown instanceof ReplayInputError);
      }
    },
  });

  // YAML is read up to maxYamlTextLength characters, JSON up to maxJsonTextLength (and the body
  // and file bounds); each shape is fed at the larger bound it can reach.
  const yamlLimit = Math.min(maxYamlTextLength, maxBodyBytes);
  const jsonScenarioLimit = Math.min(maxJsonTextLength, maxBodyBytes);
  for (const shape of yamlShapes) cases.push(scenario('YAML', shape, yamlLimit));
  for (const shape of jsonShapes) cases.push(scenario('JSON', shape, jsonScenarioLimit));
  for (const shape of yamlShapes) cases.push(config('YAML', shape, Math.min(maxYamlTextLength, maxConfigFileBytes)));
  for (const shape of jsonShapes) cases.push(config('JSON', shape, Math.min(maxJsonTextLength, maxConfigFileBytes)));
  for (const shape of jsonShapes) cases.push(body(shape));
  for (const shape of replayShapes)
    cases.push(replay(shape, shape.format === 'har' ? maxHarTextLength : maxReplayFileBytes));
  // A HAR as large as the file bound is refused before it is parsed.
  for (const shape of replayShapes.filter((entry) => entry.format === 'har').slice(0, 1))
    cases.push(replay(shape, maxReplayFileBytes, ', over its bound'));
  return { cases, dispose: () => rm(folder, { recursive: true, force: true }) };
}
