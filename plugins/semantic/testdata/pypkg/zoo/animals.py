class Animal:
    def speak(self) -> str:
        return "..."


class Dog(Animal):
    def speak(self) -> str:
        return "woof"


class Puppy(Dog):
    def speak(self) -> str:
        return "yip"
