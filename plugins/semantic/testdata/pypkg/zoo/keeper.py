from zoo.animals import Animal, Dog


def greet(animal: Animal) -> str:
    return animal.speak()


def morning() -> str:
    return greet(Dog())


def broken() -> int:
    count: int = "many"
    return count
