export function double(n: number): number {
  return n * 2;
}

const answer: number = "forty-two";
console.log(double(answer), missing);
