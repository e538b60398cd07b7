namespace Zoo.Core;

public sealed class Cat : Animal
{
    public Cat(string name) : base(name)
    {
    }

    public override string Speak()
    {
        return "Meow";
    }
}
