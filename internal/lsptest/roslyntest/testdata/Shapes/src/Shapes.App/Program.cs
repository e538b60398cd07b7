using Shapes;

namespace Shapes.App;

public static class Program
{
    public static void Main(string[] args)
    {
        var shapes = new List<IShape> { new Circle(1.0), new Square(2.0) };
        Console.WriteLine(new Report().Print(shapes));
    }
}
