export function unit(): number {
  return new Circle(1).area();
}
