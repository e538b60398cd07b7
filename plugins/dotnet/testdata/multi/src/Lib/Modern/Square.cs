namespace Multi.Lib.Modern;

public sealed class Square(double side) : Shape
{
    public override double Area() => side * side;
}
