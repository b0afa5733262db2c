import { maskSecret } from '../../../spec/credential-masking.js';
import { type FaultSettings, faultSettingsSchema } from '../config/fault-config.js';
import type { ControlRoute } from './control-types.js';

/**
 * `GET` and `POST /__mock/faults` (and `controls.faults()`, `controls.setFaults()`): a session's
 * latency and faults at run time (decision 042), behind the controls' usual guards (loopback, Host,
 * Origin, token: control-access.ts). The keys a rule names are shown masked, as everywhere (the demo
 * keys by name: they are public).
 */
export const faultRoutes = [
  {
    method: 'GET',
    path: '/__mock/faults',
    name: 'faults',
    run: async (runtime, session) => shown(runtime.faults.settingsOf(session), runtime.demoKeyNames),
    http: (result) => ({ status: 200, body: { faults: result } }),
  } satisfies ControlRoute<'faults'>,
  {
    method: 'POST',
    path: '/__mock/faults',
    name: 'setFaults',
    input: () => faultSettingsSchema(),
    async run(runtime, session, input: FaultSettings) {
      runtime.faults.set(session, input);
      return shown(input, runtime.demoKeyNames)!;
    },
    http: (result, { session }) => ({ status: 200, body: { session, faults: result } }),
  } satisfies ControlRoute<'setFaults'>,
] as const;

function shown(settings: FaultSettings | undefined, demoKeys: ReadonlySet<string>): FaultSettings | null {
  if (settings === undefined) return null;
  if (settings.rules === undefined) return settings;
  return {
    ...settings,
    rules: settings.rules.map((rule) =>
      rule.keys === undefined
        ? rule
        : { ...rule, keys: rule.keys.map((key) => (demoKeys.has(key) ? key : maskSecret(key))) },
    ),
  };
}
