import { createDataGenerator, type DataGenerator } from '../../spec/data-generator.js';
import type { GenericOperation, GenericRequestBuilder } from '../lib/generic-requests.js';
import { createdIdentifier } from '../lib/resource-path.js';

/** What the checks of one run share: the seeded generator, and what the run created where. */
export class GenericContext {
  #data: DataGenerator | undefined;
  /** Path template of a POST -> the path values it was sent with and the body of its 2xx. */
  readonly created = new Map<string, { pathValues: Record<string, string>; body: Record<string, unknown> }>();

  readonly #builders = new Map<string, GenericRequestBuilder>();

  builder(operation: GenericOperation, make: () => GenericRequestBuilder): GenericRequestBuilder {
    let builder = this.#builders.get(operation.id);
    if (builder === undefined) {
      builder = make();
      this.#builders.set(operation.id, builder);
    }
    return builder;
  }

  data(seed: number): DataGenerator {
    this.#data ??= createDataGenerator(seed);
    return this.#data;
  }

  /**
   * The path values of a resource the kit created for an operation that changes one: the last
   * path parameter from the body of a 2xx to a POST on the path before it (`POST /pets` ->
   * `DELETE /pets/{petId}` with the created `petId` or `id`, at the top or in an envelope such as
   * `data`), the others from that POST's own path. `missing` says why a creation gave no usable id.
   */
  createdResource(operation: GenericOperation): { values: Record<string, string> } | { missing: string } {
    const match = /^(.*)\/\{([^}/]+)\}[^{}]*$/.exec(operation.definition.pathTemplate);
    if (match === null) return { missing: 'the path names no resource' };
    const [, collection, parameter] = match as unknown as [string, string, string];
    const record = this.created.get(collection);
    if (record === undefined) return { missing: `no 2xx to a POST on ${collection}` };
    const found = createdIdentifier(record.body, parameter);
    const created = `the 2xx to POST ${collection}`;
    if (found === undefined)
      return {
        missing: `${created} names no ${parameter === 'id' ? 'id' : `${parameter} or id`}, at its top or in an envelope`,
      };
    // An empty segment would address the collection (`PUT /lists/`), not the resource.
    if (String(found.value).trim() === '') return { missing: `${created} gives ${found.at} as an empty string` };
    // The created value must be one the parameter accepts (a float id does not fill an integer parameter).
    const definition = operation.definition.parameters.find(
      (candidate) => candidate.in === 'path' && candidate.name === parameter,
    );
    if (definition !== undefined && !definition.validator.isValid(found.value))
      return {
        missing: `${created} gives ${found.at} ${JSON.stringify(found.value)}, which ${parameter} does not accept`,
      };
    return { values: { ...record.pathValues, [parameter]: found.text } };
  }
}
