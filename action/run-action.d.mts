// Types of run-action.mjs for the tests that import it (the action itself runs as plain Node).
export const reportFiles: Readonly<Record<string, string>>;
export const verdicts: Readonly<Record<number, string>>;
export interface ActionInputs {
  baseUrl: string;
  apiKey: string;
  rateLimitKey: string | undefined;
  spec: string | undefined;
  profile: 'default' | 'thorough';
  readOnly: boolean;
  formats: string[];
  failOnInconclusive: boolean;
  reportDir: string;
}
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs;
export function kitArguments(inputs: ActionInputs, reportDir: string): string[];
export function kitCommand(workspace: string, actionPath: string): string[];
export function workflowData(text: string): string;
export function maskCommands(secret: string): string;
export function outputFileText(outputs: Readonly<Record<string, string>>, newDelimiter?: () => string): string;
export function reportFolder(workspace: string, reportDir: string): string;
export function runAction(env?: Readonly<Record<string, string | undefined>>): Promise<number>;
