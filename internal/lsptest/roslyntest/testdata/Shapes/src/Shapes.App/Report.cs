using Shapes;

namespace Shapes.App;

public class Report
{
    private readonly AreaCalculator calculator = new AreaCalculator();

    public string Print(IReadOnlyList<IShape> shapes)
    {
        double total = calculator.TotalArea(shapes);
        return $"{shapes.Count} shapes, total area {total:F2}";
    }
}
