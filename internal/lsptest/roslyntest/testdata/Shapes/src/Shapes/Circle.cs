namespace Shapes;

public class Circle : IShape
{
    public Circle(double radius)
    {
        Radius = radius;
    }

    public double Radius { get; }

    public double Area() => Math.PI * Radius * Radius;

    public string Name => "circle";
}
