import { affordableWithoutKey, unsentMessage } from '../generate/address-budget.js';
import { type CredentialSpelling, credentialSpellings } from '../generate/credential-spellings.js';
import { OpenChoices, reportOpenChoices } from '../generate/open-choices.js';
import { pickOperations } from '../generate/operation-picks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import { expectErrorBody } from '../lib/expect-response.js';
import { allOperations, callOf, createCategory, type SuiteOperation } from './operations.js';

/**
 * Credentials from the grammar (issue 39): every spelling of generate/credential-spellings.ts,
 * each part of `credentials = auth-scheme 1*SP token` varied on its own, on the operations of the
 * interface (section 5.2: the requirement applies to every operation). A spelling the grammar
 * allows must get what `Bearer <key>` gets; one it forbids, or a wrong key, 401 + Error; where the
 * grammar and the interface's example part ways, either, named as INFO.
 */
const parts: { part: CredentialSpelling['part']; title: string }[] = [
  {
    part: 'scheme',
    title: 'auth-scheme in any letter case accepted; other schemes (Basic with the key included) -> 401 + Error',
  },
  { part: 'separator', title: 'one space accepted, none refused; several spaces or a tab: information' },
  {
    part: 'token',
    title: 'the key with a prefix, cut, padded, one character changed, quoted or as an auth-param -> 401 + Error',
  },
  { part: 'field', title: 'two Authorization lines: which one the server reads (information), never a 5xx' },
];

function spellingsOf(part: CredentialSpelling['part'], key: string, thorough: boolean): CredentialSpelling[] {
  // A variant that comes out as the canonical spelling (a key without letters has no swapped case) proves nothing.
  return credentialSpellings.filter(
    (spelling) =>
      spelling.part === part &&
      (thorough || spelling.thoroughOnly !== true) &&
      (spelling.expect !== 'refuse' || spelling.lines(key).join() !== `Bearer ${key}`),
  );
}

function send(
  run: CheckRun,
  operation: SuiteOperation,
  spelling: CredentialSpelling,
  label: string,
): Promise<Exchange> {
  const lines = spelling.lines(run.target.apiKey);
  return run.send({
    ...callOf(operation),
    // A spelling the server must accept spends the key's budget; one it may refuse, the address's.
    identity: spelling.expect === 'accept' ? 'main' : 'anonymous',
    ...(lines.length === 1 ? { authorization: lines[0]! } : { authorizations: lines }),
    ...(operation === createCategory ? { json: { name: run.categoryName(`cred-${label}`) } } : {}),
  });
}

export default defineArea('Generated credentials (§5, RFC 9110 §11, RFC 6750 §2.1)', 'sequential', (check) => {
  for (const { part, title } of parts) {
    check(
      {
        id: `credentials.${part}`,
        rule: '§5.1',
        title,
        operation: '(every operation)',
        writes: true,
        // At most one POST per spelling, whatever the profile.
        maxCreates: (target) =>
          credentialSpellings.filter(
            (spelling) => spelling.part === part && (target.thorough || spelling.thoroughOnly !== true),
          ).length,
      },
      async (run) => {
        const choices = new OpenChoices();
        const failures: Evidence[] = [];
        const unsent: string[] = [];
        const canonical = new Map<SuiteOperation, number>();
        const spellings = spellingsOf(part, run.target.apiKey, run.target.thorough);
        const picks = pickOperations(spellings.length, allOperations, run.target);
        for (const [index, spelling] of spellings.entries()) {
          for (const operation of picks[index]!) {
            if (spelling.expect !== 'accept' && !affordableWithoutKey(run)) {
              unsent.push(`${spelling.label} [${operation.label}]`);
              continue;
            }
            const expected = await canonicalStatus(run, operation, canonical);
            const exchange = await send(run, operation, spelling, `${part}-${index}`);
            const problem = judge(run, { spelling, exchange, expected }, choices);
            if (problem !== undefined) failures.push(evidenceOf(exchange, `${spelling.label}: ${problem}`));
          }
        }
        run.cases(picks.flat().length - unsent.length);
        if (failures.length > 0)
          throw new CheckFailure(
            `${failures.length} spellings answered against RFC 9110 §11 / RFC 6750 §2.1: ${failures
              .slice(0, 3)
              .map((evidence) => evidence.detail)
              .join('; ')}`,
            failures.slice(0, 6),
          );
        if (unsent.length > 0) throw new OverBudget(unsentMessage(unsent));
        reportOpenChoices(run, choices, 'credentials');
      },
    );
  }
});

/** What `Bearer <key>` gets on the operation (asked once per check): what an allowed spelling must get too. */
async function canonicalStatus(
  run: CheckRun,
  operation: SuiteOperation,
  known: Map<SuiteOperation, number>,
): Promise<number | undefined> {
  if (operation === createCategory) return 201;
  if (!known.has(operation)) {
    const exchange = await run.send({ ...callOf(operation), authorization: run.bearer(), identity: 'main' });
    if (exchange.response !== undefined) known.set(operation, exchange.response.status);
  }
  return known.get(operation);
}

/** The answer to one spelling, and what `Bearer <key>` got on the same operation. */
interface SpellingAnswer {
  spelling: CredentialSpelling;
  exchange: Exchange;
  expected: number | undefined;
}

/** The problem with the answer to one spelling, or undefined; open outcomes go into `choices`. */
function judge(
  run: CheckRun,
  { spelling, exchange, expected }: SpellingAnswer,
  choices: OpenChoices,
): string | undefined {
  const status = exchange.response?.status;
  if (status === undefined) return `no response: ${exchange.transportError ?? 'unknown'}`;
  const refused = () => {
    try {
      expectErrorBody(run.spec, exchange);
      return undefined;
    } catch (error) {
      return error instanceof CheckFailure ? error.message : String(error);
    }
  };
  const accepted = status === expected && status !== 401;
  if (spelling.expect === 'accept')
    return accepted ? undefined : `${spelling.why}: expected ${expected ?? 'what Bearer <key> gets'}, got ${status}`;
  if (spelling.expect === 'refuse') {
    if (status === 401) return refused();
    return `${spelling.why}: expected 401 + Error, got ${status}`;
  }
  if (accepted) choices.add(spelling.label, `accepted (${spelling.why})`);
  else if (status === 401 || status === 400) {
    choices.add(spelling.label, `refused with ${status} (${spelling.why})`);
    return refused();
  } else return `${spelling.why}: expected ${expected} or 401 + Error, got ${status}`;
  return undefined;
}
