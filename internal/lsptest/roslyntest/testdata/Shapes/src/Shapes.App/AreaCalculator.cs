using Shapes;
using System.Linq;
using System.Collections.Generic;

namespace Shapes.App;

public class AreaCalculator
{
    // Calls through the interface: Area() here means IShape.Area.
    public double TotalArea(IEnumerable<IShape> shapes)
    {
        return shapes.Sum(s => s.Area());
    }
}
