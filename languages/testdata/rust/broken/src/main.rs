fn main() {
    let unused = 1;
    let count: i32 = "three";
    println!("{}", count);
}
