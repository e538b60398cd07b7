import type { Shape } from "./shape.js";

export class Square implements Shape {
  constructor(private readonly side: number) {}

  area(): number {
    return this.side * this.side;
  }

  name(): string {
    return "square";
  }
}
