def double(n: int) -> int:
    return n * 2


count: int = "three"
print(double(count), undefined_name)
