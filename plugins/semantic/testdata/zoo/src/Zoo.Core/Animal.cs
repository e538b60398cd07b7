namespace Zoo.Core;

public abstract class Animal : IAnimal
{
    protected Animal(string name)
    {
        Name = name;
    }

    public string Name { get; }

    public abstract string Speak();

    public virtual string Describe()
    {
        return $"{Name} says {Speak()}";
    }
}
