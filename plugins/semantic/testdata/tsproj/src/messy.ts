export function messy( x:number ){
  if (x>1) {
      return x+1;
  }
  return x;
}
