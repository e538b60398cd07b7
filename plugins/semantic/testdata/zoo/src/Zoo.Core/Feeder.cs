namespace Zoo.Core;

public class Feeder
{
    public int Meals { get; private set; }

    public void Feed(IAnimal animal)
    {
        Feed(animal, 1);
    }

    public void Feed(IAnimal animal, int portions)
    {
        Meals += portions;
    }

    public void Feed(string name)
    {
        Meals++;
    }
}
