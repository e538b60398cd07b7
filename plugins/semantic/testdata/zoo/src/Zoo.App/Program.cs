using Zoo.Core;

namespace Zoo.App;

public static class Program
{
    public static void Main(string[] args)
    {
        var animals = new List<Animal> { new Dog("Rex"), new Puppy("Bit"), new Cat("Tom") };
        var keeper = new Keeper();
        Console.WriteLine(keeper.Morning(animals));
        Console.WriteLine(keeper.Meals());
    }
}
