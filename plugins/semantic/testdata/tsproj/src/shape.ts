export interface Shape {
  area(): number;
  name(): string;
}
