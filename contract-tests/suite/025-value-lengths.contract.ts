import { describeFinding, probeCreations, probeLength } from '../generate/length-probe.js';
import { defineArea } from '../lib/check.js';
import { createCategory } from './operations.js';

/**
 * Lengths from short to as long as the server accepts (issue 39): the interface shows no limit on
 * field sizes (section 8), so a limit is the server's choice, found here first (growing plain ASCII
 * values, then a bisection) and named as INFO. Every later check reads the finding: a valid value
 * longer than the server accepts, refused with 400 + Error, is then that limit, not a failure.
 */
export default defineArea('Value lengths (§2, §8)', 'sequential', (check) => {
  check(
    {
      id: 'values.length-limit',
      rule: '§4 createCategory.2',
      title:
        'name and description of growing lengths -> 201, up to a limit of the server (not shown: information) refused with 400 + Error',
      operation: createCategory.label,
      operationId: createCategory.operationId,
      writes: true,
      maxCreates: (target) => 2 * probeCreations(target.thorough),
    },
    async (run) => {
      const name = await probeLength(run, 'name', (value) => ({ name: value }));
      run.state.lengthLimits.set('name', name);
      const description = await probeLength(run, 'description', (value) => ({
        name: run.categoryName('len-d'),
        description: value,
      }));
      run.state.lengthLimits.set('description', description);
      run.cases(name.sent + description.sent);
      const findings = [name, description];
      const summary = findings.map(describeFinding).join('; ');
      if (findings.some((finding) => finding.refusedBytes !== undefined))
        run.info(`the interface shows no limits on field sizes; this server ${summary}`);
      else run.note(summary);
    },
  );
});
