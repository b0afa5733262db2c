/**
 * Caps how many requests are in flight at once (`--concurrency`).
 *
 * @example const slots = new Semaphore(4); await slots.acquire(); try { ... } finally { slots.release(); }
 */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}
