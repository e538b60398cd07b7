namespace Zoo.Core;

public class Dog : Animal
{
    public Dog(string name) : base(name)
    {
    }

    public override string Speak()
    {
        return "Woof";
    }

    public override string Describe()
    {
        return "Dog " + base.Describe();
    }
}

public class Puppy : Dog
{
    public Puppy(string name) : base(name)
    {
    }

    public override string Speak()
    {
        return "Yip";
    }
}
