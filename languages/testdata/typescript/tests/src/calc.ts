export function add(a: number, b: number): number {
  return a + b;
}

// Wrong on purpose: the fixture needs a failing test.
export function sub(a: number, b: number): number {
  return a + b;
}
