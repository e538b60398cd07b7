import type { Shape } from "./shape.js";
import { Circle } from "./circle.js";
import { Square } from "./square.js";

export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}

export function a(): number { return b(); }

export function b(): number { return c(); }

export function c(): number {
  return totalArea([new Circle(1), new Square(2)]);
}

export const count: number = "three";
