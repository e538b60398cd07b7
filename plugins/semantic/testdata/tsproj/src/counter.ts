export class Counter {
  #count = 0;

  #step(by: number): number {
    this.#count += by;
    return this.#count;
  }

  next(): number {
    return this.#step(1);
  }
}
