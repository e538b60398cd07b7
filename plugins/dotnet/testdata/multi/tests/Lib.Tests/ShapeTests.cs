namespace Multi.Lib.Tests;

public class ShapeTests
{
    [Xunit.Fact]
    public void Square_Area() => Xunit.Assert.Equal(4, new Multi.Lib.Modern.Square(2).Area());
}
