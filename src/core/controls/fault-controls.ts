import { type FaultSettings, faultSettingsSchema } from '../config/fault-config.js';
import type { ControlRoute } from './control-types.js';

/**
 * `GET` and `POST /__mock/faults` (and `controls.faults()`, `controls.setFaults()`): a session's
 * latency and faults at run time (decision 042), behind the controls' usual guards (loopback, Host,
 * Origin, token: control-access.ts).
 */
export const faultRoutes = [
  {
    method: 'GET',
    path: '/__mock/faults',
    name: 'faults',
    run: async (runtime, session) => runtime.faults.settingsOf(session) ?? null,
    http: (result) => ({ status: 200, body: { faults: result } }),
  } satisfies ControlRoute<'faults'>,
  {
    method: 'POST',
    path: '/__mock/faults',
    name: 'setFaults',
    input: () => faultSettingsSchema(),
    async run(runtime, session, input: FaultSettings) {
      runtime.faults.set(session, input);
      return input;
    },
    http: (result, { session }) => ({ status: 200, body: { session, faults: result } }),
  } satisfies ControlRoute<'setFaults'>,
] as const;
