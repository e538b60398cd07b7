using Zoo.Core;

namespace Zoo.App;

public class Keeper
{
    private readonly Feeder feeder = new Feeder();

    public string Morning(IReadOnlyList<Animal> animals)
    {
        foreach (var animal in animals)
        {
            feeder.Feed(animal);
        }
        return string.Join(", ", animals.Select(a => a.Describe()));
    }

    public int Meals()
    {
        return feeder.Meals;
    }
}
