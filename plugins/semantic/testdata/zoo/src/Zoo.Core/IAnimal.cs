namespace Zoo.Core;

/// <summary>Something that lives in the zoo.</summary>
public interface IAnimal
{
    string Name { get; }

    string Speak();
}
