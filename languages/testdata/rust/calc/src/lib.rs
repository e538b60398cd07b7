//! Test fixture for the rust.* tools: one passing, one failing and one
//! ignored test, and a clippy lint.

pub fn add(a: i32, b: i32) -> i32 {
    return a + b;
}

pub fn sub(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn subtracts() {
        assert_eq!(sub(5, 3), 2);
    }

    #[test]
    #[ignore]
    fn later() {}
}
