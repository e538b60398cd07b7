namespace Shapes;

/// <summary>A closed two-dimensional shape.</summary>
public interface IShape
{
    double Area();

    string Name { get; }
}
