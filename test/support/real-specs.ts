import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The public documents of `../shared/real-specs/` (set1, set2; their README says where each comes
 * from), read in place: the project keeps no copy. `$PETSTORE_REAL_SPECS` names another folder; a
 * git worktree one level deeper finds it too. Empty where it is absent (a clone without `../shared`),
 * so a test or a bench says so and skips.
 */
export const realSpecsFolder =
  [
    process.env.PETSTORE_REAL_SPECS,
    join(projectRoot, '../shared/real-specs'),
    join(projectRoot, '../../shared/real-specs'),
  ].find((folder): folder is string => folder !== undefined && existsSync(folder)) ??
  join(projectRoot, '../shared/real-specs');

export interface RealSpec {
  /** `set2/v3.1_openai.yaml` */
  name: string;
  file: string;
  /** Bytes of the document's own file (DigitalOcean's and Lichess's trees come on top). */
  sizeBytes: number;
  /** Whether the document brings other files in (`$ref`s to its tree). */
  multiFile: boolean;
}

/** Files of set2 that hold more than the document: DigitalOcean's fragments are not documents. */
const documentName = /^(swagger2_|v3\.[01]_).*\.(ya?ml|json)$/;

/** Every document of set1 and set2, in name order. */
export function realSpecs(): RealSpec[] {
  return ['set1', 'set2'].flatMap((set) => {
    let names: string[];
    try {
      names = readdirSync(join(realSpecsFolder, set)).sort();
    } catch {
      return [];
    }
    return names
      .filter((name) => (set === 'set1' ? /\.ya?ml$/.test(name) && name !== 'README.md' : documentName.test(name)))
      .map((name) => {
        const file = join(realSpecsFolder, set, name);
        return {
          name: `${set}/${name}`,
          file,
          sizeBytes: statSync(file).size,
          multiFile: name === 'v3.0_digitalocean.yaml' || name === 'v3.1_lichess.yaml',
        };
      });
  });
}

/**
 * The large ones: over 1 MB in one file, or a tree of files (DigitalOcean: 2.7 MB in 2,850 files;
 * Lichess: 1 MB in 500). Each must be ready in under 2 s (`npm run bench:corpus`).
 */
export function isLargeRealSpec(spec: RealSpec): boolean {
  return spec.sizeBytes > 1_000_000 || spec.multiFile;
}
