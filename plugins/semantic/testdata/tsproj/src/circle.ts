import type { Shape } from "./shape.js";

export class Circle implements Shape {
  constructor(private readonly radius: number) {}

  area(): number {
    return Math.PI * this.radius * this.radius;
  }

  name(): string {
    return "circle";
  }
}
